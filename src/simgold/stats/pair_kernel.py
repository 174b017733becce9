"""The rater pairs' inner loops, compiled (numba): per rater, its partners' shared items and the
rank sums of each pair's Spearman; each rater's sum of its pairs' values as numpy sums a dense row.

A rater's partners come from the item x rater incidence: for each item of the rater, the item's
other raters (one (pair, shared item) triple each). Per rater, a first pass counts each partner's
shared items, a second puts the pair's two score codes in the partner's bucket, and each bucket of
at least ``min_overlap`` items gives the pair's count and sums of ranks, squared ranks and products
of ranks. Ranks are average ranks (ties: the mean of their positions), multiples of 1/2, from a
counting sort of the codes (or a sort where a bucket is much smaller than the number of codes);
every sum is exact in float64, so the order of the additions does not matter and the sums equal
``grouped_ranks``'. Nothing of size (pairs x shared items) is ever held: the memory is the output.

numba loads when a kernel is first called (``kernels``), so that importing this module stays cheap,
and only for a job large enough to repay it (``kernels_for``);
compiled once per machine (``cache=True``: numba keeps the machine code beside this file, or in
``NUMBA_CACHE_DIR``).
"""

from __future__ import annotations

import numpy as np

from simgold.stats.grouped_ranks import spearman_from_sums

__all__ = ["COMPILED_FROM", "PAIR_BLOCK", "TABLE_CODES", "TABLE_TRIPLES", "kernel_pairs", "kernels", "kernels_for",
           "triples_of"]  # fmt: skip

PAIR_BLOCK = 1 << 20  # rater pairs whose rank sums are held at once
TABLE_CODES = 16  # at most this many distinct scores: each pair's shared items counted in a table of codes
TABLE_TRIPLES = 8  # and at least this many (pair, shared item) triples per partner visited, else buckets
# (pair, shared item) triples from which the compiled loops repay loading numba and LLVM into the
# process; below, numpy's blocks are as fast and lighter (docs/benchmarks.md, the agreement section)
COMPILED_FROM = 16_000_000

_compiled: dict = {}


def _skip(a, b, complete, changed, incremental):
    """Whether partner ``b`` of row ``a`` gives no triple: itself, two complete raters (their pairs
    come from a product of ranks), or, when only the changed raters' pairs are wanted, a changed
    partner of a lower index (that pair comes from the partner's row)."""
    if b == a:
        return True
    if complete[a] and complete[b]:
        return True
    return incremental and changed[b] and b < a


def _tally(a, rptr, r_item, pos, iptr, i_rater, complete, changed, incremental, cnt, touched):
    """Count row ``a``'s shared items per partner into ``cnt``; the partners met, in ``touched``;
    -1 when the row meets so many that its partners are found by a scan of ``cnt`` instead."""
    nt = 0
    if not incremental and not complete[a]:  # partners after a, none to skip
        size = 0
        for e in range(rptr[a], rptr[a + 1]):
            size += iptr[r_item[e] + 1] - pos[e] - 1
        if size * 4 > len(cnt) - a:
            for e in range(rptr[a], rptr[a + 1]):
                for t in range(pos[e] + 1, iptr[r_item[e] + 1]):
                    cnt[i_rater[t]] += 1
            return -1
    for e in range(rptr[a], rptr[a + 1]):
        it = r_item[e]
        start = iptr[it] if incremental else pos[e] + 1  # all raters: only the partners after a
        for t in range(start, iptr[it + 1]):
            b = i_rater[t]
            if _skip(a, b, complete, changed, incremental):
                continue
            if cnt[b] == 0:
                touched[nt] = b
                nt += 1
            cnt[b] += 1
    return nt


def _count_pairs(rows, rptr, r_item, pos, iptr, i_rater, complete, changed, incremental, min_overlap, out):
    """Per row, its partners with at least ``min_overlap`` shared items."""
    R = len(rptr) - 1
    cnt = np.zeros(R, np.int32)
    touched = np.empty(R, np.int32)
    for k in range(len(rows)):
        a = rows[k]
        nt = _tally(a, rptr, r_item, pos, iptr, i_rater, complete, changed, incremental, cnt, touched)
        m = 0
        if nt < 0:
            for b in range(a + 1, R):
                m += cnt[b] >= min_overlap
                cnt[b] = 0
        for t in range(nt):
            b = touched[t]
            if cnt[b] >= min_overlap:
                m += 1
            cnt[b] = 0
        out[k] = m


def _partners(a, nt, cnt, touched, min_overlap, sel):
    """The partners of at least ``min_overlap`` shared items in ascending order, into ``sel``."""
    R = len(cnt)
    m = 0
    if nt < 0 or nt * 16 > R:  # many partners: a scan of the counts is cheaper than a sort
        for b in range(R):
            if cnt[b] >= min_overlap:
                sel[m] = b
                m += 1
        return m
    order = np.sort(touched[:nt])
    for t in range(nt):
        b = order[t]
        if cnt[b] >= min_overlap:
            sel[m] = b
            m += 1
    return m


def _count_ranks(hist, n_codes, rank):
    """Average ranks of codes counted in ``hist`` (ties: the mean of their positions), ``rank[c]``
    for each code; returns the count and the sums of the ranks and of their squares (exact)."""
    below, s, ss = 0, 0.0, 0.0
    for c in range(n_codes):
        h = hist[c]
        r = below + (h + 1) / 2.0
        rank[c] = r
        s += h * r
        ss += h * r * r
        below += h
    return below, s, ss


def _code_rank_sums(codes, lo, hi, n_codes, hist, rank):
    """Average ranks of the codes in ``codes[lo:hi]`` by a counting sort: ``rank[c]`` for each code
    present; returns the sum of the ranks and of their squares (exact)."""
    for c in range(n_codes):
        hist[c] = 0
    for i in range(lo, hi):
        hist[codes[i]] += 1
    _, s, ss = _count_ranks(hist, n_codes, rank)
    return s, ss


def _sorted_ranks(values, out):
    """Average ranks (1-based) of ``values`` into ``out`` by a sort; the sum and sum of squares."""
    order = np.argsort(values, kind="mergesort")
    n = len(values)
    s, ss, i = 0.0, 0.0, 0
    while i < n:
        j = i
        while j + 1 < n and values[order[j + 1]] == values[order[i]]:
            j += 1
        r = (i + j) / 2.0 + 1.0
        for t in range(i, j + 1):
            out[order[t]] = r
        s += (j - i + 1) * r
        ss += (j - i + 1) * r * r
        i = j + 1
    return s, ss


def _bucket_sums(ca, cb, lo, hi, n_codes, hist, rank_a, rank_b, sums, k):
    """The count and rank sums of one pair (its shared items ``lo:hi`` of the buckets) into row k."""
    n = hi - lo
    sab = 0.0
    if n_codes <= 4 * n + 32:
        sa, saa = _code_rank_sums(ca, lo, hi, n_codes, hist, rank_a)
        sb, sbb = _code_rank_sums(cb, lo, hi, n_codes, hist, rank_b)
        for i in range(lo, hi):
            sab += rank_a[ca[i]] * rank_b[cb[i]]
    else:
        ra, rb = np.empty(n), np.empty(n)
        sa, saa = _sorted_ranks(ca[lo:hi], ra)
        sb, sbb = _sorted_ranks(cb[lo:hi], rb)
        for i in range(n):
            sab += ra[i] * rb[i]
    sums[k, 0], sums[k, 1], sums[k, 2] = n, sa, saa
    sums[k, 3], sums[k, 4], sums[k, 5] = sb, sbb, sab


def _fill_buckets(a, rptr, r_item, r_code, pos, iptr, i_rater, i_code, complete, changed, incremental, min_overlap,
                  cnt, where, ca, cb):  # fmt: skip
    """The second pass over row ``a``'s triples: each pair's two codes into its bucket."""
    fast = not incremental and not complete[a]
    for e in range(rptr[a], rptr[a + 1]):  # the second pass: each pair's codes into its bucket
        it, code = r_item[e], r_code[e]
        if fast:
            for t in range(pos[e] + 1, iptr[it + 1]):
                b = i_rater[t]
                if cnt[b] >= min_overlap:
                    w = where[b]
                    ca[w], cb[w] = code, i_code[t]
                    where[b] = w + 1
            continue
        start = iptr[it] if incremental else pos[e] + 1
        for t in range(start, iptr[it + 1]):
            b = i_rater[t]
            if cnt[b] < min_overlap or _skip(a, b, complete, changed, incremental):
                continue
            w = where[b]
            ca[w], cb[w] = code, i_code[t]
            where[b] = w + 1


def _pair_sums(rows, first, rptr, r_item, r_code, pos, iptr, i_rater, i_code, complete, changed, incremental,
               min_overlap, n_codes, out_b, sums):  # fmt: skip
    """For each row, its partners (ascending) into ``out_b`` from ``first[k]`` on, and each pair's
    count and sums (n, sum a, sum a^2, sum b, sum b^2, sum ab) into the same rows of ``sums``."""
    R = len(rptr) - 1
    cnt, where = np.zeros(R, np.int32), np.zeros(R, np.int64)
    touched, sel = np.empty(R, np.int32), np.empty(R, np.int32)
    ca, cb = np.empty(1024, np.int32), np.empty(1024, np.int32)
    hist, rank_a, rank_b = np.zeros(n_codes, np.int64), np.zeros(n_codes), np.zeros(n_codes)
    for k in range(len(rows)):
        a = rows[k]
        nt = _tally(a, rptr, r_item, pos, iptr, i_rater, complete, changed, incremental, cnt, touched)
        m = _partners(a, nt, cnt, touched, min_overlap, sel)
        total = 0
        for j in range(m):
            where[sel[j]] = total
            total += cnt[sel[j]]
        if total > len(ca):
            ca, cb = np.empty(2 * total, np.int32), np.empty(2 * total, np.int32)
        _fill_buckets(a, rptr, r_item, r_code, pos, iptr, i_rater, i_code, complete, changed, incremental,
                      min_overlap, cnt, where, ca, cb)  # fmt: skip
        for j in range(m):
            b = sel[j]
            out_b[first[k] + j] = b
            _bucket_sums(ca, cb, where[b] - cnt[b], where[b], n_codes, hist, rank_a, rank_b, sums, first[k] + j)
        if nt < 0:
            cnt[a + 1 :] = 0
        for t in range(nt):
            cnt[touched[t]] = 0


def _table_sums(table, base, n_codes, hist_a, hist_b, rank_a, rank_b, sums, o):
    """The count and rank sums of one pair from its table of shared items by (code a, code b) into
    row o of ``sums``, zeroing the table; returns the count."""
    for c in range(n_codes):
        hist_a[c], hist_b[c] = 0, 0
    for ca in range(n_codes):
        for cb in range(n_codes):
            h = table[base + ca * n_codes + cb]
            hist_a[ca] += h
            hist_b[cb] += h
    n, sa, saa = _count_ranks(hist_a, n_codes, rank_a)
    _, sb, sbb = _count_ranks(hist_b, n_codes, rank_b)
    sab = 0.0
    for ca in range(n_codes):
        inner = 0.0
        for cb in range(n_codes):
            inner += table[base + ca * n_codes + cb] * rank_b[cb]
            table[base + ca * n_codes + cb] = 0
        sab += rank_a[ca] * inner
    sums[o, 0], sums[o, 1], sums[o, 2] = n, sa, saa
    sums[o, 3], sums[o, 4], sums[o, 5] = sb, sbb, sab
    return n


def _table_tally(a, rptr, r_item, r_code, pos, iptr, i_rater, i_code, complete, changed, incremental, n_codes,
                 table, fast, seen, touched):  # fmt: skip
    """Row ``a``'s triples into the table; the partners met into ``touched`` (their number), or -1
    when the row has so many triples that all the partners after it are scanned instead."""
    kk = n_codes * n_codes
    if fast:
        size = 0
        for e in range(rptr[a], rptr[a + 1]):
            size += iptr[r_item[e] + 1] - pos[e] - 1
        fast = size * 4 > len(seen) - a
    nt = 0
    for e in range(rptr[a], rptr[a + 1]):
        it, base = r_item[e], r_code[e] * n_codes
        if fast:
            for t in range(pos[e] + 1, iptr[it + 1]):
                table[i_rater[t] * kk + base + i_code[t]] += 1
            continue
        for t in range(iptr[it] if incremental else pos[e] + 1, iptr[it + 1]):
            b = i_rater[t]
            if _skip(a, b, complete, changed, incremental):
                continue
            if seen[b] != a:
                seen[b] = a
                touched[nt] = b
                nt += 1
            table[b * kk + base + i_code[t]] += 1
    return -1 if fast else nt


def _table_pairs(rows, rptr, r_item, r_code, pos, iptr, i_rater, i_code, complete, changed, incremental,
                 min_overlap, n_codes, table, out_b, sums, per_row):  # fmt: skip
    """Rows from the first on, while their pairs surely fit in ``out_b``: each row's partners of at
    least ``min_overlap`` shared items (ascending) into ``out_b`` and their count and rank sums into
    ``sums``, from one pass over its (pair, shared item) triples into a table of partners x (code a,
    code b) (``table``: zeros, returned zeroed); each row's number of pairs into ``per_row``.
    Returns the number of rows done."""
    R, kk = len(rptr) - 1, n_codes * n_codes
    seen, touched = np.full(R, -1, np.int64), np.empty(R, np.int32)
    rank_a, rank_b = np.zeros(n_codes), np.zeros(n_codes)
    hist_a, hist_b = np.zeros(n_codes, np.int64), np.zeros(n_codes, np.int64)
    o = 0
    for k in range(len(rows)):
        a = rows[k]
        if o + R > len(out_b):
            return k
        fast = not incremental and not complete[a]  # partners after a, none to skip
        nt = _table_tally(a, rptr, r_item, r_code, pos, iptr, i_rater, i_code, complete, changed, incremental,
                          n_codes, table, fast, seen, touched)  # fmt: skip
        fast = nt < 0
        start = o
        if fast:
            for b in range(a + 1, R):
                if _table_sums(table, b * kk, n_codes, hist_a, hist_b, rank_a, rank_b, sums, o) >= min_overlap:
                    out_b[o] = b
                    o += 1
        else:
            for b in np.sort(touched[:nt]):
                if _table_sums(table, b * kk, n_codes, hist_a, hist_b, rank_a, rank_b, sums, o) >= min_overlap:
                    out_b[o] = b
                    o += 1
        per_row[k] = o - start
    return len(rows)


def _item_order(item, n_items):
    """The entries (sorted by rater, then item) in item order, raters ascending within an item (a
    stable counting sort), and each entry's place in that order."""
    iptr = np.zeros(n_items + 1, np.int64)
    for e in range(len(item)):
        iptr[item[e] + 1] += 1
    for i in range(n_items):
        iptr[i + 1] += iptr[i]
    fill = iptr[:-1].copy()
    order, pos = np.empty(len(item), np.int64), np.empty(len(item), np.int64)
    for e in range(len(item)):
        p = fill[item[e]]
        order[p], pos[e] = e, p
        fill[item[e]] = p + 1
    return iptr, order, pos


def _dense_row_sums(starts, b, rho, r0, r1, cursor, block):
    """Rows ``r0:r1`` of the symmetric raters x raters matrix of the pairs' values (0 where a pair
    has none) into ``block``; ``cursor[j]``: the first pair of rater j not yet placed below the
    diagonal (rows are filled in ascending blocks)."""
    for i in range(r0, r1):
        for k in range(starts[i], starts[i + 1]):
            if rho[k] == rho[k]:
                block[i - r0, b[k]] = rho[k]
    for j in range(r1):
        k = cursor[j]
        while k < starts[j + 1] and b[k] < r1:
            if rho[k] == rho[k]:
                block[b[k] - r0, j] = rho[k]
            k += 1
        cursor[j] = k


def _restrict(starts, b, rho, keep, new, out_starts, out_b, out_rho):
    """The pairs of two kept raters, renumbered (``new``: a kept rater's new index); with no output
    arrays (length 0), only their number."""
    o, fill = 0, len(out_b) > 0 or len(out_starts) > 0
    for a in range(len(starts) - 1):
        if keep[a]:
            if fill:
                out_starts[new[a]] = o
            for k in range(starts[a], starts[a + 1]):
                if keep[b[k]]:
                    if fill:
                        out_b[o], out_rho[o] = new[b[k]], rho[k]
                    o += 1
    if fill:
        out_starts[len(out_starts) - 1] = o
    return o


def _value_counts(starts, b, rho, out):
    """Per rater, its pairs with a value (as either rater)."""
    for a in range(len(starts) - 1):
        for k in range(starts[a], starts[a + 1]):
            if rho[k] == rho[k]:
                out[a] += 1
                out[b[k]] += 1


def _place(starts, b, at_a, at_b, out):
    """The position of each pair (``at_a[k]``, ``at_b[k]``) among the pairs (-1 where absent)."""
    for k in range(len(at_a)):
        lo, hi = starts[at_a[k]], starts[at_a[k] + 1]
        while lo < hi:
            mid = (lo + hi) // 2
            if b[mid] < at_b[k]:
                lo = mid + 1
            else:
                hi = mid
        out[k] = lo if lo < starts[at_a[k] + 1] and b[lo] == at_b[k] else -1


def _rater_sums(starts, b, rho, row_cells):
    """Per rater, the sum of its pairs' values as numpy sums its dense row (blocks of dense rows,
    0 where a pair has no value: numpy's own pairwise sum), and its number of pairs with a value."""
    k, R = _compiled, len(starts) - 1
    count = np.zeros(R, np.int64)
    k["value_counts"](starts, b, rho, count)
    total, cursor = np.zeros(R), starts[:-1].copy()
    step = max(1, row_cells // max(R, 1))
    for r0 in range(0, R, step):
        r1 = min(R, r0 + step)
        block = np.zeros((r1 - r0, R))
        k["dense_row_sums"](starts, b, rho, r0, r1, cursor, block)
        total[r0:r1] = block.sum(axis=1)
    return total, count


def kernels() -> dict:
    """The compiled kernels by name, made (or loaded from numba's cache) on first use.

    Returns
    -------
    dict
        Empty when numba cannot be imported (it comes with the workflow's packages; the callers
        then take their numpy path, which gives the same values); else ``count_pairs``,
        ``pair_sums``, ``item_order``, ``dense_row_sums``, ``restrict``, ``place``, ``value_counts``,
        ``table_pairs`` (numba dispatchers of this module's loops) and ``rater_sums`` (numpy's
        sums of the dense rows these fill).

    Examples
    --------
    >>> iptr, order, pos = kernels()["item_order"](np.array([0, 2, 1, 2], np.int64), 3)
    >>> iptr.tolist(), order.tolist(), pos.tolist()
    ([0, 1, 2, 4], [0, 2, 1, 3], [0, 2, 1, 3])
    """
    if not _compiled:
        try:
            from numba import njit  # heavy: numba (and LLVM), only where rater pairs are computed
        except ImportError:  # numba comes with the workflow's packages: without it, numpy's way
            return {}

        inline = {
            f.__name__: njit(inline="always")(f)
            for f in (_skip, _tally, _partners, _count_ranks, _code_rank_sums, _table_sums, _fill_buckets, _table_tally)
        }
        inline.update({f.__name__: njit(f) for f in (_sorted_ranks, _bucket_sums)})
        globals().update(inline)
        for name, f in (("count_pairs", _count_pairs), ("pair_sums", _pair_sums), ("item_order", _item_order),
                        ("dense_row_sums", _dense_row_sums), ("restrict", _restrict), ("place", _place),
                        ("value_counts", _value_counts), ("table_pairs", _table_pairs)):  # fmt: skip
            _compiled[name] = njit(nogil=True, cache=True)(f)
        _compiled["rater_sums"] = _rater_sums
    return _compiled


def kernels_for(triples: int | None = None) -> dict:
    """The compiled kernels where they pay: when this process has loaded them already, or for a job
    of at least ``COMPILED_FROM`` (pair, shared item) triples; else none (numpy's way, the same values).

    Parameters
    ----------
    triples : int, optional
        The job's (pair, shared item) triples; None: use the kernels only if already loaded.

    Returns
    -------
    dict
        ``kernels()``, or empty.

    Examples
    --------
    >>> set(kernels_for(COMPILED_FROM)) == set(kernels())
    True
    """
    if _compiled or (triples is not None and triples >= COMPILED_FROM):
        return kernels()
    return {}


def triples_of(m, changed: np.ndarray | None) -> int:
    """The (pair, shared item) triples of a job: per item, its pairs of raters (all, or those with a
    changed rater); complete raters' included (what the loops visit is at most this).

    Parameters
    ----------
    m : simgold.stats.rank_correlation.RatingMatrix
        The ratings.
    changed : numpy.ndarray of bool or None
        None: the pairs of every rater; else those with at least one changed rater (a pair of two
        changed raters counted from both).

    Returns
    -------
    int
        The number of triples.

    Examples
    --------
    >>> from simgold.stats.rank_correlation import RatingMatrix
    >>> m = RatingMatrix.from_dense(np.array([[1.0, 2, 1], [2, 1, np.nan], [3, 3, 2]]))
    >>> triples_of(m, None), triples_of(m, np.array([False, False, True]))
    (7, 4)
    """
    per_item = np.bincount(m.item, minlength=m.shape[0]).astype(np.int64)
    if changed is None:
        return int((per_item * (per_item - 1) // 2).sum())
    return int((per_item[m.item[changed[m.rater]]] - 1).sum())


def kernel_pairs(m, min_overlap: int, complete: np.ndarray, changed: np.ndarray | None):
    """The rater pairs of a rating matrix that share at least ``min_overlap`` items, not of two
    complete raters, per row (every rater, or the changed ones) its partners ascending.

    Parameters
    ----------
    m : simgold.stats.rank_correlation.RatingMatrix
        The ratings (entries sorted by rater, then item).
    min_overlap : int
        The fewest shared items of a pair.
    complete : numpy.ndarray of bool
        The raters who rated every item (their pairs together are not given here).
    changed : numpy.ndarray of bool or None
        None: every rater's pairs with the raters after it; else the pairs with at least one
        changed rater, from the row of the changed one (of two changed raters: the lower).

    Returns
    -------
    rows : numpy.ndarray of int
        The raters whose rows are given.
    per_row : numpy.ndarray of int64
        Each row's number of pairs.
    b : numpy.ndarray of int32
        The partners, row after row, each row's ascending.
    rho : numpy.ndarray of float
        Each pair's Spearman's rho (NaN where either side is constant), as ``grouped_spearman``.

    Examples
    --------
    >>> from simgold.stats.rank_correlation import RatingMatrix
    >>> m = RatingMatrix.from_dense(np.array([[1.0, 2, 1], [2, 1, np.nan], [3, 3, 2], [4, 4, 3]]))
    >>> rows, per_row, b, rho = kernel_pairs(m, 3, np.zeros(3, dtype=bool), None)
    >>> per_row.tolist(), b.tolist(), rho.tolist()
    ([2, 1, 0], [1, 2, 2], [0.8, 1.0, 1.0])
    """
    k = kernels()
    n_items, R = m.shape
    item = m.item.astype(np.int64)
    rptr = np.searchsorted(m.rater, np.arange(R + 1))
    iptr, order, pos = k["item_order"](item, n_items)
    code = np.unique(m.score, return_inverse=True)[1].reshape(-1).astype(np.int32)
    n_codes = int(code.max(initial=0)) + 1
    incremental = changed is not None
    rows = np.flatnonzero(changed) if incremental else np.arange(R)
    changed = changed if incremental else np.zeros(R, dtype=bool)
    data = (rptr, item, code, pos, iptr, m.rater[order].astype(np.int32), code[order], complete, changed, incremental)
    size = iptr[item + 1] - (iptr[item] if incremental else pos + 1)  # each entry's triples
    visits = len(rows) * (R - 1) if incremental else R * (R - 1) // 2  # partners a table would visit
    if n_codes > TABLE_CODES or size.sum() < TABLE_TRIPLES * visits:  # many codes, or sparse: buckets
        return (rows, *_bucket_pairs(k, rows, data, min_overlap, n_codes))
    table = np.zeros(R * n_codes * n_codes, np.uint16 if n_items < 1 << 16 else np.int32)
    # at most: a row's later raters (all raters), and its triples / min_overlap; pages not written
    # to are never resident, and the arrays shrink in place (realloc) to the pairs found
    per_rater = np.bincount(m.rater, size, R)[rows].astype(np.int64) // max(min_overlap, 1)
    bound = np.minimum(per_rater, R - 1 if incremental else R - 1 - rows)
    b, rho = np.empty(int(bound.sum()) + R, np.int32), np.empty(int(bound.sum()) + R)
    per_row, sums = np.zeros(len(rows), np.int64), np.empty((max(PAIR_BLOCK, R), 6))
    done, n = 0, 0
    while done < len(rows):
        out_b = b[n : n + len(sums)]
        step = k["table_pairs"](rows[done:], *data, min_overlap, n_codes, table, out_b, sums, per_row[done:])
        if step == 0:  # cannot happen: the arrays hold every row's most pairs
            raise RuntimeError("rater pairs: the output arrays are too short")
        got = int(per_row[done : done + step].sum())
        rho[n : n + got] = spearman_from_sums(*sums[:got].T)
        done, n = done + step, n + got
    del out_b
    b.resize(n, refcheck=False)
    rho.resize(n, refcheck=False)
    return rows, per_row, b, rho


def _bucket_pairs(k, rows, data, min_overlap, n_codes):
    """(pairs per row, partners, rho) from each pair's bucket of shared items (many score codes)."""
    rptr, item, code, pos, iptr, i_rater, i_code, complete, changed, incremental = data
    per_row = np.zeros(len(rows), np.int64)
    k["count_pairs"](rows, rptr, item, pos, iptr, i_rater, complete, changed, incremental, min_overlap, per_row)
    first = np.r_[0, np.cumsum(per_row)]
    b, rho = np.empty(first[-1], np.int32), np.empty(first[-1])
    first_row = np.unique(np.searchsorted(first, np.arange(0, first[-1], PAIR_BLOCK), side="right") - 1)
    for r0, r1 in zip(first_row, np.r_[first_row[1:], len(rows)]):
        o0, o1 = first[r0], first[r1]
        sums = np.empty((o1 - o0, 6))
        k["pair_sums"](rows[r0:r1], first[r0:r1] - o0, *data[:7], complete, changed, incremental, min_overlap,
                       n_codes, b[o0:o1], sums)  # fmt: skip
        rho[o0:o1] = spearman_from_sums(*sums.T)
    return per_row, b, rho
