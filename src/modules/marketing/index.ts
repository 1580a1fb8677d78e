// The marketing module's public surface: the CompleteRegistration conversion event and its job.
export {
  COMPLETE_REGISTRATION_JOB,
  completeRegistrationHandler,
  queueCompleteRegistration,
  type CompleteRegistrationEvent,
  type ConversionsConfig,
} from './conversions.job.js';
