// The file `credence panels:issue FILE.json` reads, checked by the same Ajv and schema as the admin route.
import { StatementInput } from '../domain/panels/panel.schema.js';
import { itemValidator } from '../http/validation.js';

export const validateStatementFile = itemValidator<StatementInput>(StatementInput);
