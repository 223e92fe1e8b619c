// The ad-census matching cost of lib/stereo/sgm.h step 3, shared by the cost stage
// (sgm_cost_adcensus.cu) and the path kernel (sgm_path.cu), which computes costs on the
// fly instead of reading a cost volume (W x H x D bytes more device memory).
// tab: 128 bytes, the census table (0..63) then the AD table (0..63), from
// gvis_sgm_cost_luts on the host, so that both devices use the same integers.  The census
// table Tc[i] = min(i, B) (sgm.h step 3) is the identity for every distance two codes can
// have (h <= B: the codes have B bits), so h is added as it is: a clamp and a
// shared-memory load less a cost.
#ifndef GVIS_SGM_COST_ADCENSUS_CUH
#define GVIS_SGM_COST_ADCENSUS_CUH

#include <stdint.h>

__device__ __forceinline__ uint32_t gvis_adc_cost(uint32_t hamming, int gl, int gr, const uint8_t *tab)
{
    return hamming + tab[64 + min(abs(gl - gr), 63)];
}

#endif
