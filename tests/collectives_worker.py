"""One of two processes started by tests/test_mint_distributed.py (jax.distributed on 127.0.0.1):

    python tests/collectives_worker.py RANK PORT

Runs every mint.distributed collective across the 2 processes with rank-dependent inputs and
asserts the results torch.distributed defines (worked out here with numpy from both ranks'
inputs), then the NotImplementedError of a sub-group and of point-to-point. Prints "ok".
"""
import sys

RANK, PORT = int(sys.argv[1]), sys.argv[2]

from graphcell.mint import distributed as dist  # noqa: E402

dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{PORT}", world_size=2, rank=RANK)

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from graphcell import Tensor  # noqa: E402


def mine(r=RANK):
    """Rank r's input: [1, 2, 3, 4] + 10 r."""
    return np.arange(1, 5, dtype=np.float32) + 10 * r


def t(a):
    return Tensor(np.asarray(a, np.float32))


def check(tensor, expected):
    np.testing.assert_allclose(tensor.asnumpy(), expected, rtol=0, atol=0)


assert (dist.get_rank(), dist.get_world_size(), dist.get_process_group_ranks()) == (RANK, 2, [0, 1])
both = np.stack([mine(0), mine(1)])

for op, fold in (("sum", both.sum(0)), ("max", both.max(0)), ("prod", both.prod(0)), ("avg", both.mean(0))):
    x = t(mine())
    assert dist.all_reduce(x, op=op) is None
    check(x, fold)

x = t(mine())
dist.reduce(x, dst=1)
check(x, both.sum(0) if RANK == 1 else mine())

outs = [t(np.zeros(4)), t(np.zeros(4))]
dist.all_gather(outs, t(mine()))
check(outs[0], mine(0)), check(outs[1], mine(1))

out = t(np.zeros(8))
dist.all_gather_into_tensor(out, t(mine()))
check(out, both.reshape(-1))

uneven = t(mine()[:RANK + 1])   # rank 0 sends 1 row, rank 1 sends 2
out = t(np.zeros(3))
dist.all_gather_into_tensor_uneven(out, uneven, output_split_sizes=[1, 2])
check(out, np.concatenate([mine(0)[:1], mine(1)[:2]]))

x = t(mine())
dist.broadcast(x, src=1)
check(x, mine(1))

got = [t(np.zeros(4)), t(np.zeros(4))]
dist.gather(t(mine()), got if RANK == 0 else None, dst=0)
if RANK == 0:
    check(got[0], mine(0)), check(got[1], mine(1))

x = t(np.zeros(4))
dist.scatter(x, [t(mine(1) * 2), t(mine(1) * 3)] if RANK == 1 else None, src=1)
check(x, mine(1) * (2 + RANK))   # rank 1's list, element RANK

out = t(np.zeros(4))
dist.reduce_scatter(out, [t(mine() * 2), t(mine() * 3)])
check(out, (both * (2 + RANK)).sum(0))

out = t(np.zeros(2))
dist.reduce_scatter_tensor(out, t(mine()))
check(out, both.sum(0)[2 * RANK:2 * RANK + 2])

out = t(np.zeros(1 if RANK == 0 else 3))
dist.reduce_scatter_tensor_uneven(out, t(mine()), input_split_sizes=[1, 3])
check(out, both.sum(0)[:1] if RANK == 0 else both.sum(0)[1:])

outs = [t(np.zeros(2)), t(np.zeros(2))]
dist.all_to_all(outs, [t(mine()[:2]), t(mine()[2:])])
check(outs[0], mine(0)[2 * RANK:2 * RANK + 2]), check(outs[1], mine(1)[2 * RANK:2 * RANK + 2])

out = t(np.zeros(4))
dist.all_to_all_single(out, t(mine()))
check(out, np.concatenate([mine(0)[2 * RANK:2 * RANK + 2], mine(1)[2 * RANK:2 * RANK + 2]]))

objs = [None, None]
dist.all_gather_object(objs, {"rank": RANK, "name": "r" * (RANK + 1)})
assert objs == [{"rank": 0, "name": "r"}, {"rank": 1, "name": "rr"}], objs
objs = ["mine", RANK] if RANK == 0 else [None, None]
dist.broadcast_object_list(objs, src=0)
assert objs == ["mine", 0], objs
gathered = [None, None] if RANK == 1 else None
dist.gather_object(("from", RANK), gathered, dst=1)
assert RANK == 0 or gathered == [("from", 0), ("from", 1)], gathered
got = [None]
dist.scatter_object_list(got, [{"to": 0}, {"to": 1}] if RANK == 0 else None, src=0)
assert got == [{"to": RANK}], got

work = dist.barrier(async_op=True)
assert work.is_completed() and work.wait() is None

# a group of the world in reverse order: group rank 0 is world rank 1
group = dist.new_group([1, 0])
assert dist.get_rank(group) == 1 - RANK and dist.get_global_rank(group, 0) == 1
outs = [t(np.zeros(4)), t(np.zeros(4))]
dist.all_gather(outs, t(mine()), group=group)
check(outs[0], mine(1)), check(outs[1], mine(0))

part = dist.new_group([0])
if RANK == 0:
    with pytest.raises(NotImplementedError, match="span every process.*jit on a mesh"):
        dist.all_reduce(t(mine()), group=part)
with pytest.raises(NotImplementedError, match="no point-to-point.*broadcast"):
    dist.send(t(mine()), dst=1 - RANK)
with pytest.raises(NotImplementedError, match="no point-to-point"):
    dist.batch_isend_irecv([dist.P2POp(dist.irecv, t(mine()), 1 - RANK)])

dist.barrier()
dist.destroy_process_group()
print("ok")
