-- Modifiers and corrections (issue 11). A modifier is a sale line of its own POS item that names the
-- line it modifies. A correction (a refund, a return, a void after close) is a sale line of negative
-- quantity that names the line it takes back; it is stored dated to that line's sale (sold_at), with
-- the time it happened in corrected_at, so stock and analytics take it back from the day it was sold.
ALTER TABLE pos_sales ADD COLUMN parent_line_id text;
ALTER TABLE pos_sales ADD COLUMN corrects_line_id text;
ALTER TABLE pos_sales ADD COLUMN corrected_at timestamptz;

-- Corrections whose original line is not stored yet (a vendor reported the refund first, or the sale
-- fell outside every window read so far). They wait here and join pos_sales when their line arrives.
CREATE TABLE pos_pending_corrections (
  account_id        text NOT NULL,
  environment       text NOT NULL,
  connection_id     text NOT NULL,
  line_id           text NOT NULL,
  corrects_line_id  text NOT NULL,
  -- The sync run that brought it: a failed run's pending corrections go with its staged lines.
  source_id         text NOT NULL,
  quantity          numeric(16, 4) NOT NULL,
  unit_price        numeric(16, 4) NOT NULL,
  corrected_at      timestamptz NOT NULL,
  PRIMARY KEY (connection_id, line_id)
);
CREATE INDEX pos_pending_corrections_original ON pos_pending_corrections (connection_id, corrects_line_id);
CREATE INDEX pos_pending_corrections_source ON pos_pending_corrections (source_id);
