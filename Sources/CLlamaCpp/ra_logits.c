#include "ra_logits.h"
#include <math.h>
#include <pthread.h>
#include <stdint.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

// A row is read in blocks of 64 entries: one pass takes each block's largest entry (vectorized),
// and only the few blocks that can hold what is looked for are read again, with a vectorized
// comparison whose mask names the entries to look at.
enum { BLOCK = 64 };

// x > m ? x : m, so that a NaN x never wins (m starts at -infinity and never is one).
static inline float larger(float x, float m) { return x > m ? x : m; }

#if defined(__x86_64__)
// In each kernel max(x, m) returns its second operand when either is a NaN: m, never a NaN.
__attribute__((target("avx512f"))) static void maxima_avx512(const float *row, size_t blocks, float *maxima) {
    for (size_t b = 0; b < blocks; b++) {
        const float *p = row + b * BLOCK;
        __m512 m = _mm512_set1_ps(-INFINITY);
        for (int i = 0; i < BLOCK; i += 16) m = _mm512_max_ps(_mm512_loadu_ps(p + i), m);
        maxima[b] = _mm512_reduce_max_ps(m);
    }
}

// Bit i set where block[i] >= threshold (a NaN never is).
__attribute__((target("avx512f"))) static uint64_t reaching_avx512(const float *block, float threshold) {
    __m512 f = _mm512_set1_ps(threshold);
    uint64_t mask = 0;
    for (int i = 0; i < BLOCK; i += 16) mask |= (uint64_t)_mm512_cmp_ps_mask(_mm512_loadu_ps(block + i), f, _CMP_GE_OQ) << i;
    return mask;
}

__attribute__((target("avx2"))) static void maxima_avx2(const float *row, size_t blocks, float *maxima) {
    for (size_t b = 0; b < blocks; b++) {
        const float *p = row + b * BLOCK;
        __m256 m = _mm256_set1_ps(-INFINITY);
        for (int i = 0; i < BLOCK; i += 8) m = _mm256_max_ps(_mm256_loadu_ps(p + i), m);
        __m128 h = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
        h = _mm_max_ps(h, _mm_movehl_ps(h, h));
        h = _mm_max_ss(h, _mm_shuffle_ps(h, h, 1));
        maxima[b] = _mm_cvtss_f32(h);
    }
}

__attribute__((target("avx2"))) static uint64_t reaching_avx2(const float *block, float threshold) {
    __m256 f = _mm256_set1_ps(threshold);
    uint64_t mask = 0;
    for (int i = 0; i < BLOCK; i += 8) {
        mask |= (uint64_t)(unsigned)_mm256_movemask_ps(_mm256_cmp_ps(_mm256_loadu_ps(block + i), f, _CMP_GE_OQ)) << i;
    }
    return mask;
}

static void maxima_sse2(const float *row, size_t blocks, float *maxima) {
    for (size_t b = 0; b < blocks; b++) {
        const float *p = row + b * BLOCK;
        __m128 m0 = _mm_set1_ps(-INFINITY), m1 = m0, m2 = m0, m3 = m0;
        for (int i = 0; i < BLOCK; i += 16) {
            m0 = _mm_max_ps(_mm_loadu_ps(p + i), m0);
            m1 = _mm_max_ps(_mm_loadu_ps(p + i + 4), m1);
            m2 = _mm_max_ps(_mm_loadu_ps(p + i + 8), m2);
            m3 = _mm_max_ps(_mm_loadu_ps(p + i + 12), m3);
        }
        __m128 h = _mm_max_ps(_mm_max_ps(m0, m1), _mm_max_ps(m2, m3));
        h = _mm_max_ps(h, _mm_movehl_ps(h, h));
        h = _mm_max_ss(h, _mm_shuffle_ps(h, h, 1));
        maxima[b] = _mm_cvtss_f32(h);
    }
}

static uint64_t reaching_sse2(const float *block, float threshold) {
    __m128 f = _mm_set1_ps(threshold);
    uint64_t mask = 0;
    for (int i = 0; i < BLOCK; i += 4) mask |= (uint64_t)(unsigned)_mm_movemask_ps(_mm_cmpge_ps(_mm_loadu_ps(block + i), f)) << i;
    return mask;
}

// e^x by Cephes' expf: x = n ln2 + r with |r| <= ln2 / 2, a degree-7 polynomial for e^r, and 2^n
// written into the exponent. Inputs are x - largest <= 0; below -87 (-infinity, or a NaN, which
// max turns into its second operand) it gives about 1e-38, nothing beside the 1 of the largest.
#define EXP_LOG2E 1.44269504088896341f
#define EXP_C1 0.693359375f
#define EXP_C2 -2.12194440e-4f
#define EXP_P0 1.9875691500e-4f
#define EXP_P1 1.3981999507e-3f
#define EXP_P2 8.3334519073e-3f
#define EXP_P3 4.1665795894e-2f
#define EXP_P4 1.6666665459e-1f
#define EXP_P5 5.0000001201e-1f

__attribute__((target("avx512f"))) static inline __m512 exp_avx512(__m512 x) {
    x = _mm512_max_ps(x, _mm512_set1_ps(-87.0f));
    __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(EXP_LOG2E)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_sub_ps(_mm512_sub_ps(x, _mm512_mul_ps(n, _mm512_set1_ps(EXP_C1))), _mm512_mul_ps(n, _mm512_set1_ps(EXP_C2)));
    __m512 p = _mm512_set1_ps(EXP_P0);
    p = _mm512_add_ps(_mm512_mul_ps(p, r), _mm512_set1_ps(EXP_P1));
    p = _mm512_add_ps(_mm512_mul_ps(p, r), _mm512_set1_ps(EXP_P2));
    p = _mm512_add_ps(_mm512_mul_ps(p, r), _mm512_set1_ps(EXP_P3));
    p = _mm512_add_ps(_mm512_mul_ps(p, r), _mm512_set1_ps(EXP_P4));
    p = _mm512_add_ps(_mm512_mul_ps(p, r), _mm512_set1_ps(EXP_P5));
    p = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(_mm512_mul_ps(p, r), r), r), _mm512_set1_ps(1.0f));
    __m512i e = _mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(127)), 23);
    return _mm512_mul_ps(p, _mm512_castsi512_ps(e));
}

// Each block's sum in float, the blocks' in double.
__attribute__((target("avx512f"))) static double sum_exp_avx512(const float *row, size_t blocks, float largest) {
    __m512 m = _mm512_set1_ps(largest);
    double sum = 0;
    for (size_t b = 0; b < blocks; b++) {
        const float *p = row + b * BLOCK;
        __m512 s = _mm512_setzero_ps();
        for (int i = 0; i < BLOCK; i += 16) s = _mm512_add_ps(s, exp_avx512(_mm512_sub_ps(_mm512_loadu_ps(p + i), m)));
        sum += _mm512_reduce_add_ps(s);
    }
    return sum;
}

__attribute__((target("avx2"))) static inline __m256 exp_avx2(__m256 x) {
    x = _mm256_max_ps(x, _mm256_set1_ps(-87.0f));
    __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(EXP_LOG2E)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_sub_ps(_mm256_sub_ps(x, _mm256_mul_ps(n, _mm256_set1_ps(EXP_C1))), _mm256_mul_ps(n, _mm256_set1_ps(EXP_C2)));
    __m256 p = _mm256_set1_ps(EXP_P0);
    p = _mm256_add_ps(_mm256_mul_ps(p, r), _mm256_set1_ps(EXP_P1));
    p = _mm256_add_ps(_mm256_mul_ps(p, r), _mm256_set1_ps(EXP_P2));
    p = _mm256_add_ps(_mm256_mul_ps(p, r), _mm256_set1_ps(EXP_P3));
    p = _mm256_add_ps(_mm256_mul_ps(p, r), _mm256_set1_ps(EXP_P4));
    p = _mm256_add_ps(_mm256_mul_ps(p, r), _mm256_set1_ps(EXP_P5));
    p = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(_mm256_mul_ps(p, r), r), r), _mm256_set1_ps(1.0f));
    __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
    return _mm256_mul_ps(p, _mm256_castsi256_ps(e));
}

__attribute__((target("avx2"))) static double sum_exp_avx2(const float *row, size_t blocks, float largest) {
    __m256 m = _mm256_set1_ps(largest);
    double sum = 0;
    for (size_t b = 0; b < blocks; b++) {
        const float *p = row + b * BLOCK;
        __m256 s = _mm256_setzero_ps();
        for (int i = 0; i < BLOCK; i += 8) s = _mm256_add_ps(s, exp_avx2(_mm256_sub_ps(_mm256_loadu_ps(p + i), m)));
        __m128 h = _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1));
        h = _mm_add_ps(h, _mm_movehl_ps(h, h));
        h = _mm_add_ss(h, _mm_shuffle_ps(h, h, 1));
        sum += _mm_cvtss_f32(h);
    }
    return sum;
}
#endif

// The plain pass: libm's expf, entries at -infinity or NaN left out.
static double sum_exp_scalar(const float *row, size_t blocks, float largest) {
    double sum = 0;
    for (size_t i = 0; i < blocks * BLOCK; i++) {
        if (row[i] > -INFINITY) sum += (double)expf(row[i] - largest);
    }
    return sum;
}
#if !defined(__x86_64__)
static void maxima_scalar(const float *row, size_t blocks, float *maxima) {
    for (size_t b = 0; b < blocks; b++) {
        float m = -INFINITY;
        for (int i = 0; i < BLOCK; i++) m = larger(row[b * BLOCK + i], m);
        maxima[b] = m;
    }
}

static uint64_t reaching_scalar(const float *block, float threshold) {
    uint64_t mask = 0;
    for (int i = 0; i < BLOCK; i++) mask |= (uint64_t)(block[i] >= threshold) << i;
    return mask;
}
#endif

// The passes of each level; `current` is the best this CPU runs unless a test chose another.
typedef struct {
    void (*maxima)(const float *row, size_t blocks, float *maxima);
    uint64_t (*reaching)(const float *block, float threshold);
    double (*sum_exp)(const float *row, size_t blocks, float largest);
} kernels;

#if defined(__x86_64__)
static const kernels levels[] = {
    [RA_LOGITS_BASELINE] = {maxima_sse2, reaching_sse2, sum_exp_scalar},
    [RA_LOGITS_AVX2] = {maxima_avx2, reaching_avx2, sum_exp_avx2},
    [RA_LOGITS_AVX512] = {maxima_avx512, reaching_avx512, sum_exp_avx512},
};
#else
static const kernels levels[] = {[RA_LOGITS_BASELINE] = {maxima_scalar, reaching_scalar, sum_exp_scalar}};
#endif

static const kernels *_Atomic current;
static ra_logits_level best;
static pthread_once_t chosen = PTHREAD_ONCE_INIT;

static void choose(void) {
    best = RA_LOGITS_BASELINE;
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) {
        best = RA_LOGITS_AVX512;
    } else if (__builtin_cpu_supports("avx2")) {
        best = RA_LOGITS_AVX2;
    }
#endif
    current = &levels[best];
}

static const kernels *chosen_kernels(void) {
    pthread_once(&chosen, choose);
    return current;
}

ra_logits_level ra_logits_best_level(void) {
    pthread_once(&chosen, choose);
    return best;
}

bool ra_logits_set_level(ra_logits_level level) {
    if (level < RA_LOGITS_BASELINE || level > ra_logits_best_level()) return false;
    current = &levels[level];
    return true;
}

// The largest entry of each block of the row, the last block being what is left (count > 0);
// returns how many blocks.
static size_t block_maxima(const kernels *k, const float *row, size_t count, float *maxima) {
    size_t whole = count / BLOCK;
    k->maxima(row, whole, maxima);
    if (whole * BLOCK == count) return whole;
    float m = -INFINITY;
    for (size_t i = whole * BLOCK; i < count; i++) m = larger(row[i], m);
    maxima[whole] = m;
    return whole + 1;
}

// The row's largest entry (-infinity when none is above it; never a NaN), and where the block
// holding the first entry equal to it starts.
static float largest_entry(const kernels *k, const float *row, size_t count, size_t *first) {
    // The maxima of a chunk of blocks at a time keep the scratch on the stack whatever the vocabulary.
    enum { CHUNK = 256 };
    float maxima[CHUNK];
    float largest = -INFINITY;
    *first = 0;
    for (size_t start = 0; start < count; start += CHUNK * BLOCK) {
        size_t length = count - start < CHUNK * BLOCK ? count - start : CHUNK * BLOCK;
        size_t blocks = block_maxima(k, row + start, length, maxima);
        for (size_t b = 0; b < blocks; b++) {
            if (maxima[b] > largest) {
                largest = maxima[b];
                *first = start + b * BLOCK;
            }
        }
    }
    return largest;
}

llama_token ra_logits_argmax(const float *row, size_t count) {
    size_t first;
    float largest = largest_entry(chosen_kernels(), row, count, &first);
    size_t end = first + BLOCK < count ? first + BLOCK : count;
    for (size_t i = first; i < end; i++) {
        if (row[i] == largest) return (llama_token)i;
    }
    return 0;
}

size_t ra_logits_top_k_scratch(size_t count) {
    size_t blocks = (count + BLOCK - 1) / BLOCK;
    return 2 * blocks + (blocks + sizeof(float) - 1) / sizeof(float);  // maxima, spare, then bins
}

// Lower logit, or the same and a later token: the first to leave the heap of the best.
static inline int worse(llama_token_data a, llama_token_data b) {
    return a.logit < b.logit || (a.logit == b.logit && a.id > b.id);
}

static void sift_down(llama_token_data *heap, size_t size, size_t parent) {
    for (;;) {
        size_t left = 2 * parent + 1, right = left + 1, least = parent;
        if (left < size && worse(heap[left], heap[least])) least = left;
        if (right < size && worse(heap[right], heap[least])) least = right;
        if (least == parent) return;
        llama_token_data swap = heap[parent];
        heap[parent] = heap[least];
        heap[least] = swap;
        parent = least;
    }
}

// The k-th largest of v[0..<n] (1 <= k <= n, no NaN), by selection in place (Hoare's partition
// around a median of three, keeping the side that holds place k-1 in descending order).
static float kth_largest(float *v, ptrdiff_t n, ptrdiff_t k) {
    ptrdiff_t lo = 0, hi = n - 1, target = k - 1;
    while (lo < hi) {
        float a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi];
        float pivot = a > b ? (b > c ? b : (a > c ? c : a)) : (a > c ? a : (b > c ? c : b));
        ptrdiff_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] > pivot) i++;
            while (v[j] < pivot) j--;
            if (i <= j) {
                float swap = v[i];
                v[i++] = v[j];
                v[j--] = swap;
            }
        }
        // Now v[lo...j] >= pivot, v[i...hi] <= pivot, and what lies between equals it.
        if (target <= j) {
            hi = j;
        } else if (target >= i) {
            lo = i;
        } else {
            return pivot;
        }
    }
    return v[target];
}

// The k-th largest of v[0..<n] (1 <= k <= n, no NaN), read but not changed; `spare` holds n
// floats and `bins` n bytes. A histogram over the values' finite range names the bin that holds
// it (a bin is a monotonic function of the value: every value in a higher bin is larger), and
// selection finds it among that bin's values alone, so the mispredicted branches of selection
// are paid for a few of the n values, not for all of them.
static float kth_largest_of(const float *v, ptrdiff_t n, ptrdiff_t k, float *spare, uint8_t *bins) {
    enum { BINS = 256 };
    float top = -INFINITY, low = INFINITY;
    for (ptrdiff_t i = 0; i < n; i++) {
        top = larger(v[i], top);
        low = v[i] > -INFINITY && v[i] < low ? v[i] : low;
    }
    float scale = BINS / (top - low);
    if (!(top < INFINITY) || !(low < top) || !(scale < INFINITY) || !(scale > 0)) {
        for (ptrdiff_t i = 0; i < n; i++) spare[i] = v[i];
        return kth_largest(spare, n, k);
    }
    // -infinity (a block that holds nothing else) falls in bin 0, as the lowest finite value does.
    uint32_t counts[BINS] = {0};
    for (ptrdiff_t i = 0; i < n; i++) {
        float at = (v[i] - low) * scale;
        bins[i] = (uint8_t)(at >= BINS - 1 ? BINS - 1 : (at > 0 ? (int)at : 0));
    }
    for (ptrdiff_t i = 0; i < n; i++) counts[bins[i]]++;
    int bin = BINS - 1;
    ptrdiff_t above = 0;
    while (above + (ptrdiff_t)counts[bin] < k) above += counts[bin--];
    ptrdiff_t size = 0;
    for (ptrdiff_t i = 0; i < n; i++) {
        if (bins[i] == bin) spare[size++] = v[i];
    }
    return kth_largest(spare, size, k - above);
}

// The k-th largest block maximum is a threshold that the k best entries all reach (k blocks hold an
// entry at or above it), so only the blocks that reach it, about k of them, are looked into, and
// only their entries at or above it are offered to a min-heap of the best so far, in token order.
size_t ra_logits_top_k(const float *row, size_t count, size_t k, float *scratch, llama_token_data *out) {
    if (k == 0 || count == 0) return 0;
    const kernels *passes = chosen_kernels();
    float *maxima = scratch;
    size_t blocks = block_maxima(passes, row, count, maxima);
    float threshold = -INFINITY;
    if (blocks >= k) {
        threshold = kth_largest_of(
            maxima, (ptrdiff_t)blocks, (ptrdiff_t)k, scratch + blocks, (uint8_t *)(scratch + 2 * blocks));
    }
    size_t size = 0;
    for (size_t b = 0; b < blocks; b++) {
        if (!(maxima[b] >= threshold)) continue;
        size_t start = b * BLOCK;
        uint64_t mask;
        if (start + BLOCK <= count) {
            mask = passes->reaching(row + start, threshold);
        } else {
            mask = 0;
            for (size_t i = start; i < count; i++) mask |= (uint64_t)(row[i] >= threshold) << (i - start);
        }
        for (; mask; mask &= mask - 1) {
            size_t i = start + (size_t)__builtin_ctzll(mask);
            llama_token_data entry = {(llama_token)i, row[i], 0};
            if (size < k) {
                out[size++] = entry;
                if (size == k) {
                    for (size_t j = k / 2; j-- > 0;) sift_down(out, k, j);
                }
            } else if (worse(out[0], entry)) {
                out[0] = entry;
                sift_down(out, k, 0);
            }
        }
    }
    return size;
}

double ra_logits_log_sum_exp(const float *row, size_t count) {
    const kernels *k = chosen_kernels();
    size_t first;
    float largest = largest_entry(k, row, count, &first);
    if (!(largest > -INFINITY) || !(largest < INFINITY)) return largest;
    // Whole blocks by the level's pass, the rest plainly; summed in double, as 49,152 terms in
    // float would lose the small ones' share.
    size_t blocks = count / BLOCK;
    double sum = k->sum_exp(row, blocks, largest);
    for (size_t i = blocks * BLOCK; i < count; i++) {
        if (row[i] > -INFINITY) sum += (double)expf(row[i] - largest);
    }
    return (double)largest + log(sum);
}
