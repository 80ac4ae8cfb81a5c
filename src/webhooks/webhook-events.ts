/** Subscribes to every kind, including kinds added later; it stands alone in `events`. */
export const ALL_EVENTS = '*'

/** The kind of the test delivery `POST /v1/webhooks/:id/test` sends; it is not an outbox event. */
export const PING_EVENT = 'ping'
