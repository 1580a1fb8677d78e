// The companies module's messages: who may manage a company's users and sub-companies, and the
// rules that keep a company with a master. English is the reference; every language has every key.

const en = {
  'companies.companyAccountsOnly': 'Only business and wholesale customers have company users.',
  'companies.mastersOnly': "Only a master user of the company can manage the company's users and sub-companies.",
  'companies.wholesaleOnly': 'Only wholesale customers have sub-companies.',
  'companies.userNotFound': 'The company has no such user.',
  'companies.subCompanyNotFound': 'The company has no such sub-company.',
  'companies.emailHasAccount':
    'This email address already has a business or wholesale account or an invitation in this web store; it cannot be invited.',
  'companies.selfDemotion': 'You cannot take the master role from yourself; ask another master.',
  'companies.lastMaster': 'The company must keep at least one master user.',
  'companies.nameNotTheirs': 'This person also uses the address outside your company, so only they can change their name.',
  'companies.unknownCountry': 'Choose a country from the list.',
};

const et: Record<keyof typeof en, string> = {
  'companies.companyAccountsOnly': 'Ettevõtte kasutajad on ainult äri- ja hulgikliendil.',
  'companies.mastersOnly': 'Ettevõtte kasutajaid ja alamettevõtteid saab hallata ainult ettevõtte peakasutaja.',
  'companies.wholesaleOnly': 'Alamettevõtted on ainult hulgiklientidel.',
  'companies.userNotFound': 'Ettevõttel pole sellist kasutajat.',
  'companies.subCompanyNotFound': 'Ettevõttel pole sellist alamettevõtet.',
  'companies.emailHasAccount':
    'Selle e-posti aadressiga on selles veebipoes juba ettevõtte või hulgikliendi konto või kutse; seda ei saa kutsuda.',
  'companies.selfDemotion': 'Te ei saa peakasutaja rolli endalt ära võtta; pöörduge teise peakasutaja poole.',
  'companies.lastMaster': 'Ettevõttel peab jääma vähemalt üks peakasutaja.',
  'companies.nameNotTheirs': 'See inimene kasutab aadressi ka väljaspool teie ettevõtet, seega saab oma nime muuta ainult tema ise.',
  'companies.unknownCountry': 'Valige riik loetelust.',
};

const ru: Record<keyof typeof en, string> = {
  'companies.companyAccountsOnly': 'Пользователи компании есть только у бизнес- и оптовых клиентов.',
  'companies.mastersOnly': 'Управлять пользователями и дочерними компаниями может только главный пользователь компании.',
  'companies.wholesaleOnly': 'Дочерние компании есть только у оптовых клиентов.',
  'companies.userNotFound': 'У компании нет такого пользователя.',
  'companies.subCompanyNotFound': 'У компании нет такой дочерней компании.',
  'companies.emailHasAccount':
    'С этим адресом электронной почты в этом интернет-магазине уже есть бизнес- или оптовая учётная запись или приглашение; его нельзя пригласить.',
  'companies.selfDemotion': 'Вы не можете снять с себя роль главного пользователя; обратитесь к другому главному пользователю.',
  'companies.lastMaster': 'У компании должен остаться хотя бы один главный пользователь.',
  'companies.nameNotTheirs': 'Этот человек использует адрес и вне вашей компании, поэтому изменить имя может только он сам.',
  'companies.unknownCountry': 'Выберите страну из списка.',
};

export const companiesMessages = { en, et, ru };
