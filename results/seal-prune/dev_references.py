"""Where Seal-Tools' gold writes a nested reference instead of a value the query states (dev).

For each dev instance (`dev.jsonl`), every gold argument of a later call that repeats an
earlier call's argument of the same name is written either as a reference to that call's
response or as the same literal value again. Counted here: references whose referenced call's
same-named value is stated in the query ("in Beijing ... in Beijing"), and literal repeats.
    python results/seal-prune/dev_references.py > results/seal-prune/dev_references.md
"""

from toollearn.core.types import Ref
from toollearn.data.seal_tools import load_split
from toollearn.evaluation.metrics.seal_tools import is_nested

examples = load_split("../shared/data", "dev")
nested = [e for e in examples if is_nested(e.calls)]
refs = stated = literal = 0
stated_rows, literal_rows = [], []
for e in examples:
    for i, call in enumerate(e.calls):
        for name, value in call.arguments.items():
            if isinstance(value, Ref):
                refs += 1
                source = e.calls[value.call] if value.call is not None else None
                earlier = source.arguments.get(name) if source else None
                if isinstance(earlier, str) and earlier.lower() in e.query.lower():
                    stated += 1
                    stated_rows.append(f"| {e.id} | {call.name}.{name} | {value.id} | {earlier} |")
            elif isinstance(value, str) and any(
                e.calls[j].arguments.get(name) == value for j in range(i)
            ):
                literal += 1
                literal_rows.append(f"| {e.id} | {call.name}.{name} | | {value} |")
print("# Seal-Tools dev: nested references against repeated values\n")
print(f"- dev instances: {len(examples)}, nested: {len(nested)}, gold references: {refs}")
print(f"- references to a call whose same-named value the query states: {stated}")
print(f"- the same value of an earlier call's same-named argument written again: {literal}\n")
print("| instance | argument | gold | value |\n|---|---|---|---|")
print("\n".join(stated_rows + literal_rows))
