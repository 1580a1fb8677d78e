// The outbox of events for partner integrations: writers of customers, consents, orders and
// products call emitEvent in their transaction; modules/integrations delivers and serves them.
export { customerStream, emailStream, emitEvent, productStream, type EventType, type NewEvent } from './events.js';
export { eventsAfter, lastPosition, positionEvents, type EventRow } from './events.repository.js';
export type { EventsTables } from './events.tables.js';
export { erasedEmailStream, eventsPersonalData } from './events.personal-data.js';
