// The sampler's reads of a logit row, vectorized for the CPU at hand (AVX-512, AVX2 or SSE2,
// chosen once at run time): the package is built for any x86-64, and the Swift compiler gives a
// SIMD type only that baseline's instructions, which made one pass over a 49,152-entry row cost
// more than a small model's decode of the token.
#ifndef RA_LOGITS_H
#define RA_LOGITS_H

#include "ra_llama_declarations.h"
#include <stdbool.h>
#include <stddef.h>

/// The instructions the passes use: SSE2 (any x86-64; plain C elsewhere), AVX2 or AVX-512.
typedef enum { RA_LOGITS_BASELINE = 0, RA_LOGITS_AVX2 = 1, RA_LOGITS_AVX512 = 2 } ra_logits_level;

/// The most capable level this CPU runs: the one used unless `ra_logits_set_level` chose another.
ra_logits_level ra_logits_best_level(void);

/// Makes the passes use `level` from now on (every level gives the same answers: for tests,
/// which check each); false if this CPU cannot run it.
bool ra_logits_set_level(ra_logits_level level);

/// The first index of the row's largest entry, as llama.cpp's greedy sampler chooses (a NaN is
/// never the largest); 0 for a row of NaNs.
llama_token ra_logits_argmax(const float *row, size_t count);

/// How many floats `ra_logits_top_k` needs as scratch for a row of `count` entries.
size_t ra_logits_top_k_scratch(size_t count);

/// The `k` largest entries of the row (of equals, the lowest tokens; a NaN never), in no order,
/// written to `out` (room for `k`) with `p` 0; returns how many were written (`k` unless the row
/// has fewer entries that are not NaN). `scratch` holds `ra_logits_top_k_scratch(count)`
/// floats.
size_t ra_logits_top_k(const float *row, size_t count, size_t k, float *scratch, llama_token_data *out);

/// log(sum(exp(row[i]))) over the row's entries that are not NaN, for log-probabilities
/// (`row[i] - ra_logits_log_sum_exp(row, count)`): the largest entry by the vectorized pass, then
/// a vectorized pass of e^x (Cephes' expf; the baseline level uses libm's), each block summed in
/// float and the blocks in double. -infinity for a row with no entry above -infinity, +infinity
/// for one with an entry at +infinity.
double ra_logits_log_sum_exp(const float *row, size_t count);

#endif
