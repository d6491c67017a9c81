"""The expression and statement language: grammar, parser, AST, compiler and reference evaluator."""
