"""The language server: validate's checks on an editor's buffer, an index of a rule file's names, the pygls adapter."""
