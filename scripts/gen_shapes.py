#!/usr/bin/python3
"""gen_shapes.py KIND N: a graph file (DESIGN 1.1) of about N nodes in one of
the shapes that make a careless planner quadratic, on stdout.  Used by
scripts/bench_scale.sh (the adversarial rows); not committed as data.

  chain            a chain of N nodes
  alias-chain      a buffer seen through a chain of N views of views
  inplace-chain    one storage written in place N/2 times, each write after
                   a node that reads it (a residual stream): 3.7 x 10^11
                   literal in-place pairs at N = 10^6
  inplace-readers  the same with 9 readers before each write
  fanin            N - 1 graph inputs of 16 bytes read by one node (64-byte
                   alignment leaves a 48-byte gap after each)
  fanout           one tensor read by N - 2 nodes, each a graph output
  csv-align        a MiniMalloc CSV (not a graph) of N buffers of 16 bytes
                   live together, 64-aligned but the first (alignment 1)
"""
import json
import sys


def chain(n):
    yield {"id": 0, "op": "input", "size": 16, "inputs": []}
    for k in range(1, n):
        yield {"id": k, "op": "y", "size": 8 + k % 7, "inputs": [k - 1]}


def alias_chain(n):
    yield {"id": 0, "op": "input", "size": 1024, "inputs": []}
    for k in range(1, n - 1):
        yield {"id": k, "op": "view", "size": 1024, "inputs": [k - 1], "alias": k - 1}
    yield {"id": n - 1, "op": "relu", "size": 1024, "inputs": [n - 2]}


def inplace(n, readers):
    yield {"id": 0, "op": "input", "size": 1024, "inputs": []}
    yield {"id": 1, "op": "conv", "size": 4096, "inputs": [0]}
    last, k = 1, 2
    while k + readers < n:
        for _ in range(readers):
            yield {"id": k, "op": "mul", "size": 64, "inputs": [last]}
            k += 1
        yield {"id": k, "op": "add_", "size": 4096, "inputs": [last, k - 1], "alias": last,
               "inplace": True}
        last, k = k, k + 1


def fanin(n):
    for k in range(n - 1):
        yield {"id": k, "op": "input", "size": 16, "inputs": []}
    yield {"id": n - 1, "op": "cat", "size": 16 * (n - 1), "inputs": list(range(n - 1))}


def fanout(n):
    yield {"id": 0, "op": "input", "size": 16, "inputs": []}
    yield {"id": 1, "op": "x", "size": 1 << 20, "inputs": [0]}
    for k in range(2, n):
        yield {"id": k, "op": "y", "size": 8, "inputs": [1]}


SHAPES = {
    "chain": chain,
    "alias-chain": alias_chain,
    "inplace-chain": lambda n: inplace(n, 1),
    "inplace-readers": lambda n: inplace(n, 9),
    "fanin": fanin,
    "fanout": fanout,
}


def csv_align(n):
    sys.stdout.write("id,lower,upper,size,alignment\n0,0,100,16,1\n")
    sys.stdout.write("".join("%d,0,100,16,64\n" % k for k in range(1, n)))


def main():
    kinds = list(SHAPES) + ["csv-align"]
    if len(sys.argv) != 3 or sys.argv[1] not in kinds or not sys.argv[2].isdigit() or int(sys.argv[2]) < 3:
        sys.exit("usage: gen_shapes.py %s N (N >= 3)" % "|".join(kinds))
    kind, n = sys.argv[1], int(sys.argv[2])
    if kind == "csv-align":
        csv_align(n)
        return
    w = sys.stdout.write
    w('{"name": "%s_%d", "nodes": [\n' % (kind.replace("-", "_"), n))
    w(",\n".join(json.dumps(v) for v in SHAPES[kind](n)))
    w("]}\n")


if __name__ == "__main__":
    main()
