// The marketing module's public surface: the CompleteRegistration conversion event and its job.
export {
  COMPLETE_REGISTRATION_JOB,
  completeRegistrationHandler,
  queueCompleteRegistration,
  type CompleteRegistrationEvent,
} from './conversions.job.js';
export { readConversionsConfig, type ConversionsConfig } from './marketing.config.js';
export { marketingPersonalData } from './marketing.personal-data.js';
