// The sitemap's answers. English is the reference; every language has every key.

const en = { 'sitemap.notFound': 'There is no such sitemap file.' };
const et: Record<keyof typeof en, string> = { 'sitemap.notFound': 'Sellist saidikaardi faili ei ole.' };
const ru: Record<keyof typeof en, string> = { 'sitemap.notFound': 'Такого файла карты сайта нет.' };

export const sitemapMessages = { en, et, ru };
