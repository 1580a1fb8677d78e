// The downloads module's messages. English is the reference; every language has every key.

const en = {
  'downloads.notFound': 'There is no download with the id "{id}" among your purchases.',
  'downloads.linkInvalid': 'This download link is not valid or has expired; ask for a new one.',
  'downloads.linkSpent': 'This download link has served its file {times} times over and is used up; ask for a new one.',
  'downloads.otherClient': 'This download link was made for another customer.',
  'downloads.limitReached': 'This purchase has been downloaded {limit} times, which is the limit.',
  'downloads.rangeNotSatisfiable': 'The requested range is outside the file ({size} bytes).',
  'downloads.fileMissing': 'The file is not available right now; please try again later.',
  'downloads.unknownProduct': 'There is no product with the code "{code}".',
  'downloads.noFile': 'The product "{code}" has no {format} file.',
  'downloads.unsupportedMediaType': 'Unsupported content type "{type}"; send the file as application/octet-stream.',
  'downloads.tooLarge': 'The file is larger than {limit} bytes.',
  'downloads.emptyFile': 'The file is empty.',
  'downloads.badFilename': 'The file name may hold letters, digits, spaces and . _ ( ) - only, at most 150 characters.',
};

const et: Record<keyof typeof en, string> = {
  'downloads.notFound': 'Teie ostude seas ei ole allalaadimist tunnusega "{id}".',
  'downloads.linkInvalid': 'See allalaadimislink ei kehti või on aegunud; küsige uus.',
  'downloads.linkSpent': 'Selle allalaadimislingiga on fail saadud juba {times} korra jagu ja link on ära kasutatud; küsige uus.',
  'downloads.otherClient': 'See allalaadimislink on tehtud teisele kliendile.',
  'downloads.limitReached': 'Seda ostu on alla laaditud {limit} korda, rohkem ei saa.',
  'downloads.rangeNotSatisfiable': 'Küsitud vahemik on failist ({size} baiti) väljas.',
  'downloads.fileMissing': 'Fail ei ole praegu saadaval; proovige hiljem uuesti.',
  'downloads.unknownProduct': 'Toodet koodiga "{code}" ei ole.',
  'downloads.noFile': 'Tootel "{code}" ei ole {format}-faili.',
  'downloads.unsupportedMediaType': 'Sisu tüüp "{type}" ei ole toetatud; saatke fail kui application/octet-stream.',
  'downloads.tooLarge': 'Fail on suurem kui {limit} baiti.',
  'downloads.emptyFile': 'Fail on tühi.',
  'downloads.badFilename': 'Failinimes võivad olla tähed, numbrid, tühikud ja . _ ( ) -, kokku kuni 150 märki.',
};

const ru: Record<keyof typeof en, string> = {
  'downloads.notFound': 'Среди ваших покупок нет загрузки с идентификатором "{id}".',
  'downloads.linkInvalid': 'Эта ссылка для загрузки недействительна или устарела; запросите новую.',
  'downloads.linkSpent': 'По этой ссылке файл уже получен {times} раза целиком, она исчерпана; запросите новую.',
  'downloads.otherClient': 'Эта ссылка для загрузки сделана для другого клиента.',
  'downloads.limitReached': 'Эту покупку скачали {limit} раз, больше нельзя.',
  'downloads.rangeNotSatisfiable': 'Запрошенный диапазон вне файла ({size} байт).',
  'downloads.fileMissing': 'Файл сейчас недоступен; попробуйте позже.',
  'downloads.unknownProduct': 'Товара с кодом "{code}" нет.',
  'downloads.noFile': 'У товара "{code}" нет файла {format}.',
  'downloads.unsupportedMediaType': 'Тип содержимого "{type}" не поддерживается; отправьте файл как application/octet-stream.',
  'downloads.tooLarge': 'Файл больше {limit} байт.',
  'downloads.emptyFile': 'Файл пуст.',
  'downloads.badFilename': 'В имени файла допустимы буквы, цифры, пробелы и . _ ( ) -, не более 150 символов.',
};

export const downloadsMessages = { en, et, ru };
