"""The file's procedures (named effects) printed for compiled code: each a function of its own, of the state, the
seat `me` of its caller and its arguments, as the Python engine calls P_<name>(S, me, ...) (model/compile.py)."""

from __future__ import annotations


class ProcedureCalls:
    """Printer methods (mixed into printer.Printer) for a statement calling a procedure."""

    def procedure_call(self, call, env) -> list:
        """The line calling the procedure `call` names, its function printed once per shape of its arguments."""
        fn = self.ir.functions.get(call.func)
        if fn is None or fn.kind != "procedure" or call.kwargs or len(call.args) != len(fn.params):
            raise self.unsupported(call, f"this call of '{call.func}'")
        making = self.__dict__.setdefault("_procedures_making", [])
        if call.func in making:  # (numba compiles no function that calls itself without a typed signature)
            raise self.unsupported(call, f"the procedure '{call.func}' calling itself")
        args = [self.ex(a, env) for a in call.args]
        reps = tuple(rep for _, rep in args)
        making.append(call.func)
        try:
            name = self.m.function(("procedure", call.func, reps),
                                   lambda fname: self._procedure_source(fname, fn, reps))
        finally:
            making.pop()
        return [f"{name}(s, me{''.join(', ' + code for code, _ in args)})"]

    def _procedure_source(self, fname, fn, reps) -> str:
        env = {p: (f"a{i}", rep) for i, (p, rep) in enumerate(zip(fn.params, reps))}  # (its own names only)
        body = [line for statement in fn.body for line in self.st(statement, env, "    ")]
        return "\n".join([f"@_jit\ndef {fname}(s, me{''.join(', ' + env[p][0] for p in fn.params)}):",
                          *body, "    return"])
