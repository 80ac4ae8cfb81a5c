-- The variance report's data quality lists the POS items with unmapped revenue in its period: the days
-- where revenue differs from mapped revenue. The tenant index holds every POS item's day, so finding
-- them read all of the period's (30,000 rows at 5,000,000 sale lines, 10 ms, to find one). This index
-- holds only the days with unmapped revenue, with what the list reads.
CREATE INDEX analytics_pos_item_days_unmapped ON analytics_pos_item_days (account_id, environment, location_id, business_day)
  INCLUDE (connection_id, pos_item_id, revenue, mapped_revenue) WHERE revenue <> mapped_revenue;
