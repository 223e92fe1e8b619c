// Shared by the refinement stages (refine_*.cu): the classes of lib/stereo/sgm.h
// (GVIS_REFINE_*), the rounding of a x16 value to a whole disparity, and the weight of
// a vote for an occluded pixel (lib/stereo/refine.c's rule, step 2).
#ifndef GVIS_REFINE_CUH
#define GVIS_REFINE_CUH

#include <stdint.h>

#define RF_VALID 0
#define RF_OCCLUDED 1
#define RF_MISMATCH 2

__device__ __forceinline__ int rf_round16(int v)
{
    v += 8;
    return v >= 0 ? v / 16 : -((-v + 15) / 16);
}

__device__ __forceinline__ int rf_hidden_weight(const int16_t *rrow, int x, int d, int W, int16_t inval)
{
    const int xr = x - d;
    if (xr < 0 || xr >= W)
        return 2;
    const int w = rrow[xr];
    return w == inval ? 1 : rf_round16(w) > d ? 2 : 0;
}

#endif
