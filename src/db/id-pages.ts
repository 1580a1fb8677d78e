/**
 * Every row of a list read `pageSize` rows at a time in id order, each page after the last id read,
 * until a short page: what the command line's lists and the sitemap stream, without loading a whole
 * table or paying an OFFSET that grows with the page. `pageAfter` reads the page (ordered by id,
 * limited to `pageSize`) after an id; 0 before the first.
 */
export async function* rowsByIdPages<Row extends { id: number | bigint | string }>(
  pageAfter: (afterId: number) => Promise<Row[]>,
  pageSize: number,
): AsyncGenerator<Row> {
  for (let afterId = 0; ;) {
    const page = await pageAfter(afterId);
    yield* page;
    if (page.length < pageSize) return;
    afterId = Number(page.at(-1)!.id);
  }
}
