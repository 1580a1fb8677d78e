// The data export's messages: authentication of export users and the date-time parameters.
// English is the reference; every language has every key (the types make a missing one a compile error).

const en = {
  'dataExport.unauthorized': 'Authentication required: use HTTP Basic with the name and password of an export user.',
  'dataExport.disabled': 'This export user is disabled.',
  'dataExport.ipNotAllowed': 'This export user may not connect from {ip}.',
  'dataExport.dateTime': 'use year-month-day hour:minute:second in UTC, e.g. 2026-11-22 10:15:00',
  'dataExport.openWrites': 'A write that may fall in this window has not committed yet; retry in a few seconds.',
};

const et: Record<keyof typeof en, string> = {
  'dataExport.unauthorized': 'Vaja on autentimist: kasutage HTTP Basic autentimist ekspordikasutaja nime ja parooliga.',
  'dataExport.disabled': 'See ekspordikasutaja on keelatud.',
  'dataExport.ipNotAllowed': 'See ekspordikasutaja ei tohi ühenduda aadressilt {ip}.',
  'dataExport.dateTime': 'kasutage kuju aasta-kuu-päev tund:minut:sekund (UTC), nt 2026-11-22 10:15:00',
  'dataExport.openWrites':
    'Sellesse aknasse võib kuuluda kirje, mille salvestamine pole veel lõppenud; proovige mõne sekundi pärast uuesti.',
};

const ru: Record<keyof typeof en, string> = {
  'dataExport.unauthorized': 'Требуется аутентификация: используйте HTTP Basic с именем и паролем пользователя экспорта.',
  'dataExport.disabled': 'Этот пользователь экспорта отключён.',
  'dataExport.ipNotAllowed': 'Этому пользователю экспорта запрещено подключаться с адреса {ip}.',
  'dataExport.dateTime': 'используйте формат год-месяц-день час:минута:секунда (UTC), например 2026-11-22 10:15:00',
  'dataExport.openWrites': 'Запись, которая может попасть в это окно, ещё не сохранена; повторите запрос через несколько секунд.',
};

export const dataExportMessages = { en, et, ru };
