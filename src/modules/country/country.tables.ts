// The country list and its translated names. Conventions of every table: src/db/schema.ts.

export interface CountryTable {
  code: string;
  position: number;
}

export interface CountryNameTable {
  country_code: string;
  language: string;
  name: string;
}

export interface CountryTables {
  country: CountryTable;
  country_name: CountryNameTable;
}
