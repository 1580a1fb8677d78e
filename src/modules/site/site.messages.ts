// The site module's messages: why the service is not ready (GET /site/ready).
// English is the reference; every language has every key (the types make a missing one a compile error).

const en = {
  'site.notReady': 'The service is not ready: {reasons}.',
  'site.notReady.database': 'the database does not answer',
  'site.notReady.migrations': 'the database needs migrations ({names})',
  'site.notReady.search': 'the search index is not ready ({state})',
  'site.notReady.stopping': 'the process is stopping',
};

const et: Record<keyof typeof en, string> = {
  'site.notReady': 'Teenus ei ole valmis: {reasons}.',
  'site.notReady.database': 'andmebaas ei vasta',
  'site.notReady.migrations': 'andmebaas vajab migratsioone ({names})',
  'site.notReady.search': 'otsinguindeks ei ole valmis ({state})',
  'site.notReady.stopping': 'protsess peatub',
};

const ru: Record<keyof typeof en, string> = {
  'site.notReady': 'Сервис не готов: {reasons}.',
  'site.notReady.database': 'база данных не отвечает',
  'site.notReady.migrations': 'базе данных нужны миграции ({names})',
  'site.notReady.search': 'поисковый индекс не готов ({state})',
  'site.notReady.stopping': 'процесс останавливается',
};

export const siteMessages = { en, et, ru };
