// Bindings (covers and formats) the back office uses, with their names for the facets and details.
// Reference data: a new binding arrives with a migration, like the countries.
export const BINDINGS: ReadonlyArray<{ code: string; names: Record<'et' | 'en' | 'ru', string> }> = [
  { code: 'HARDCOVER', names: { et: 'Kõvakaaneline', en: 'Hardcover', ru: 'Твёрдый переплёт' } },
  { code: 'PAPERBACK', names: { et: 'Pehmekaaneline', en: 'Paperback', ru: 'Мягкая обложка' } },
  { code: 'SPIRAL', names: { et: 'Spiraalköide', en: 'Spiral-bound', ru: 'Спиральный переплёт' } },
  { code: 'BOARD', names: { et: 'Papileheküljed', en: 'Board book', ru: 'Картонная книжка' } },
  { code: 'EPUB', names: { et: 'E-raamat (EPUB)', en: 'E-book (EPUB)', ru: 'Электронная книга (EPUB)' } },
  { code: 'PDF', names: { et: 'E-raamat (PDF)', en: 'E-book (PDF)', ru: 'Электронная книга (PDF)' } },
  { code: 'MP3', names: { et: 'Audioraamat (MP3)', en: 'Audiobook (MP3)', ru: 'Аудиокнига (MP3)' } },
  { code: 'CD', names: { et: 'CD', en: 'CD', ru: 'CD' } },
  { code: 'DVD', names: { et: 'DVD', en: 'DVD', ru: 'DVD' } },
  { code: 'BLURAY', names: { et: 'Blu-ray', en: 'Blu-ray', ru: 'Blu-ray' } },
  { code: 'VINYL', names: { et: 'Vinüülplaat', en: 'Vinyl', ru: 'Виниловая пластинка' } },
  { code: 'OTHER', names: { et: 'Muu', en: 'Other', ru: 'Другое' } },
];
