export { insertNote, insertNotes, listNotes, systemNote } from './repo.js';
