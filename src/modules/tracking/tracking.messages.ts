// The session-action tracking messages: none of its own since an unknown product is answered like
// a recorded one (tracking.routes.ts); the limits use the shared error.tooManyRequests.
// English is the reference; every language has every key (the types make a missing one a compile error).

const en = {};

const et: Record<keyof typeof en, string> = {};

const ru: Record<keyof typeof en, string> = {};

export const trackingMessages = { en, et, ru };
