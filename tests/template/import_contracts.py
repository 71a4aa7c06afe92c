"""Import-linter contract types of our own (pyproject.toml, [tool.importlinter] contract_types).

`no_test_imports_test`: no test module (a module whose name starts with `test_`) imports another
test module; what tests share lives in the rig (tests/rig/). Import-linter's own expressions
cannot say it: a wildcard stands for a whole module name, never for `test_*`.
"""

from __future__ import annotations

from importlinter import Contract, ContractCheck, fields, output


def is_test_module(module: str) -> bool:
    return module.rsplit(".", 1)[-1].startswith("test_")


class NoTestImportsTestContract(Contract):
    """Configuration options:

    - packages: the packages whose test modules are checked (e.g. ["tests"]);
    - broken_contract_guidance: what to do instead (optional).
    """

    type_name = "no_test_imports_test"

    packages = fields.ListField(subfield=fields.ModuleField())
    broken_contract_guidance = fields.TextField(required=False)

    def check(self, graph, verbose: bool) -> ContractCheck:
        violations = []
        for package in self.packages:
            modules = {package.name} | graph.find_descendants(package.name)
            for importer in sorted(m for m in modules if is_test_module(m)):
                for imported in sorted(graph.find_modules_directly_imported_by(importer)):
                    if not is_test_module(imported):
                        continue
                    lines = sorted({d["line_number"] for d in graph.get_import_details(
                        importer=importer, imported=imported)})
                    violations.append({"importer": importer, "imported": imported,
                                       "lines": lines})
        return ContractCheck(kept=not violations, metadata={"violations": violations})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for violation in check.metadata["violations"]:
            lines = ", ".join(f"l.{n}" for n in violation["lines"])
            output.print_error(f"{violation['importer']} -> {violation['imported']} ({lines})",
                               bold=False)
        if self.broken_contract_guidance:
            output.new_line()
            output.print(self.broken_contract_guidance)
