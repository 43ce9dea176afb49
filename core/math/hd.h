#pragma once
// KVW_HD marks the element-wise and row maths that both backends share: the CPU backend calls
// these functions directly and the CUDA kernels in kernels/ call the very same code, so the
// arithmetic is tested on machines without a GPU.
#if defined(__CUDACC__)
#define KVW_HD __host__ __device__ inline
#else
#define KVW_HD inline
#endif

namespace kvw {

// use(i, load(i)) for i = first … end − 1 in order, the values loaded sixteen at a time before
// they are used: a loop that one device thread runs alone (a row's sum in index order) then
// waits for memory once a batch, not once a value, and its arithmetic keeps its order, so its
// bits.
template <class Load, class Use>
KVW_HD void for_each_loaded(int first, int end, Load load, Use use) {
    constexpr int kBatch = 16;
    for (int i0 = first; i0 < end; i0 += kBatch) {
        const int n = end - i0 < kBatch ? end - i0 : kBatch;
        decltype(load(i0)) v[kBatch];
        for (int k = 0; k < n; ++k) v[k] = load(i0 + k);
        for (int k = 0; k < n; ++k) use(i0 + k, v[k]);
    }
}

}  // namespace kvw
