"""Regenerate the hand-built runs behind the S1–S5 reference values (run from the repository root).

Every topic has exactly one relevant document ``<qid>-rel``; a run puts it at the first-relevant rank the
reference example prescribes (or leaves it out for "None") among nine non-relevant documents, so that RR@10,
P@1 and the rank buckets of each topic are exactly the reference's.
"""

from pathlib import Path

HERE = Path(__file__).parent


def ranking(qid, rank, n=10):
    docs = [f"{qid}-d{j}" for j in range(1, n + 1)]
    if rank is not None:
        docs[rank - 1] = f"{qid}-rel"
    return docs


def write_run(path, tag, ranks):
    lines = []
    for qid, rank in ranks.items():
        for i, doc in enumerate(ranking(qid, rank), start=1):
            lines.append(f"{qid} Q0 {doc} {i} {100 - i} {tag}")
    (HERE / path).write_text("\n".join(lines) + "\n")


def write_qrels(path, qids):
    (HERE / path).write_text("".join(f"{q} 0 {q}-rel 1\n" for q in qids))


def s1():
    a = [1, 2, None, 3, 1, 4, None, 1, 2, 5]
    b = [1, 1, 2, 3, 2, 1, None, 1, 1, 4]
    ids = [f"q{i:02d}" for i in range(1, 11)]
    write_qrels("s1.qrels", ids)
    write_run("s1-a.run", "a", dict(zip(ids, a, strict=True)))
    write_run("s1-b.run", "b", dict(zip(ids, b, strict=True)))


def s2():
    # [[both at 1, degraded], [fixed, neither]]
    tables = {"s2-1": (30, 2, 9, 9), "s2-2": (40, 1, 5, 4), "s2-3": (45, 0, 0, 5)}
    ids = [f"t{i:02d}" for i in range(1, 51)]
    write_qrels("s2.qrels", ids)
    for name, (both, degraded, fixed, neither) in tables.items():
        pairs = [(1, 1)] * both + [(1, 2)] * degraded + [(3, 1)] * fixed + [(2, 4)] * neither
        write_run(f"{name}-a.run", "a", {q: p[0] for q, p in zip(ids, pairs, strict=True)})
        write_run(f"{name}-b.run", "b", {q: p[1] for q, p in zip(ids, pairs, strict=True)})


def s3():
    # 13 wins (modern above legacy), 3 losses, 4 ties (neither returned)
    ids = [f"d{i:02d}" for i in range(1, 21)]
    topics = ['[topicset]\nname = "s3"\n']
    runs = {"s3-a.run": [], "s3-b.run": []}
    for i, q in enumerate(ids):
        topics.append(
            f'\n[[topic]]\nid = "{q}"\nquery = "deprecated api {i + 1}"\nclass = "deprecation"\n'
            f"truth = ['^{q}-new$']\n"
            f"prefer = [{{ modern = '^{q}-new$', legacy = '^{q}-old$' }}]\n"
        )
        outcome = "win" if i < 13 else "loss" if i < 16 else "tie"
        docs = [f"{q}-d{j}" for j in range(1, 11)]
        if outcome == "win":
            docs[0], docs[2] = f"{q}-new", f"{q}-old"
        elif outcome == "loss":
            docs[0], docs[2] = f"{q}-old", f"{q}-new"
        base = [f"{q}-d{j}" for j in range(1, 11)]
        base[0], base[1] = f"{q}-old", f"{q}-new"  # the baseline loses every pair
        for name, ds in (("s3-b.run", docs), ("s3-a.run", base)):
            runs[name] += [f"{q} Q0 {d} {r} {100 - r} x" for r, d in enumerate(ds, start=1)]
    (HERE / "s3.toml").write_text("".join(topics))
    for name, lines in runs.items():
        (HERE / name).write_text("\n".join(lines) + "\n")
    (HERE / "s3.qrels").write_text("".join(f"{q} 0 {q}-new 1\n" for q in ids))


def s5():
    # five topics improve from rank 2 to rank 1, five are unchanged: 5 non-zero pairs
    ids = [f"p{i:02d}" for i in range(1, 11)]
    write_qrels("s5.qrels", ids)
    write_run("s5-a.run", "a", {q: (2 if i < 5 else 1) for i, q in enumerate(ids)})
    write_run("s5-b.run", "b", dict.fromkeys(ids, 1))


if __name__ == "__main__":
    s1()
    s2()
    s3()
    s5()
