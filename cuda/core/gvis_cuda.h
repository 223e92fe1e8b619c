/* C-callable entry points of gvis's CUDA code.
 *
 * cuda/ computes on buffers it is handed: every entry point takes device
 * pointers and a stream and returns a cudaError_t value as int (0 = success).
 * Kernels never allocate; scratch memory belongs to the caller (lib/).
 * This header is plain C so that lib/ can include it without CUDA headers.
 */
#ifndef GVIS_CUDA_H
#define GVIS_CUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* cudaErrorMemoryAllocation, so that lib/ can tell device exhaustion apart. */
#define GVIS_CUDA_ERR_NOMEM 2

/* ---- devices (cuda/core/device.cu) ---- */
int gvis_cu_device_count(int *count);
int gvis_cu_device_props(int index, char *name, size_t name_len, int *major, int *minor,
                         int *mps, size_t *mem, int *driver, int *runtime);
const char *gvis_cu_strerror(int err);
/* The CUDA versions of the installed driver (0: no driver at all) and of the runtime
 * gvis was built with, as 1000 * major + 10 * minor. */
void gvis_cu_versions(int *driver, int *runtime);
/* Device from reads device to's memory directly (peer access); 1 on, 0 not possible. */
int gvis_cu_peer_enable(int from, int to);
/* How host threads wait for the device: 0 auto (CUDA's choice), 1 spin, 2 yield, 3 block
 * on an interrupt.  Before the device's context does any work. */
int gvis_cu_device_wait_mode(int device, int mode);

/* ---- a job: one device, one stream, reusable buffers and events (cuda/core/job.cu) ---- */
typedef struct gvis_cu_job gvis_cu_job;

int gvis_cu_job_create(int device, gvis_cu_job **job);
/* Makes the job's device the calling thread's current one (a batch worker thread uses
 * its own job, possibly on another GPU than the thread that made it). */
int gvis_cu_job_bind(gvis_cu_job *job);
/* Pinned host memory usable by every device (the batch pipeline's upload slots). */
int gvis_cu_pinned_alloc(size_t bytes, void **h);
void gvis_cu_pinned_free(void *h);
void gvis_cu_job_destroy(gvis_cu_job *job);
void *gvis_cu_job_stream(gvis_cu_job *job); /* the cudaStream_t */
/* A device buffer of at least bytes in slot (0..15), reused and grown across calls. */
int gvis_cu_buffer(gvis_cu_job *job, int slot, size_t bytes, void **d_ptr);
/* A pitched device image buffer in slot: rowbytes x rows, pitch returned. */
int gvis_cu_buffer2d(gvis_cu_job *job, int slot, size_t rowbytes, size_t rows, void **d_ptr, size_t *pitch);
/* A pinned host buffer of at least bytes in slot (0..7). */
int gvis_cu_host_buffer(gvis_cu_job *job, int slot, size_t bytes, void **h_ptr);
/* Asynchronous 2-D copies on the job's stream. */
int gvis_cu_upload2d(gvis_cu_job *job, void *d, size_t dpitch, const void *h, size_t hpitch, size_t rowbytes, size_t rows);
int gvis_cu_download2d(gvis_cu_job *job, void *h, size_t hpitch, const void *d, size_t dpitch, size_t rowbytes, size_t rows);
int gvis_cu_memset(gvis_cu_job *job, void *d, int value, size_t bytes);
/* Free and total memory of the job's device (cudaMemGetInfo), for the memory tests. */
int gvis_cu_mem_info(gvis_cu_job *job, size_t *free_bytes, size_t *total_bytes);
int gvis_cu_sync(gvis_cu_job *job);
/* Events around stream work: start, then stop returns the elapsed milliseconds. */
int gvis_cu_timer_start(gvis_cu_job *job);
int gvis_cu_timer_stop(gvis_cu_job *job, float *ms);

/* ---- operations: one stage per file ---- */

/* cuda/ops/hist.cu: per-channel histograms of an 8- or 16-bit image, in one launch.
 * bits 8: bins must be 256, lo 0, hi 256; bits 16: bin = (v - lo) * bins / (hi - lo) for lo <= v < hi.
 * channel < 0: all channels, d_hist is channels x bins u32; else only that channel (bins u32).
 * d_hist must be zero on entry; the counts are added into it.  d_clear (NULL, or another
 * buffer of the same size) is zeroed by the launch, so that a caller alternating two
 * buffers never needs a memset. */
int gvis_cu_hist(const void *d_src, size_t pitch, int width, int height, int channels, int bits,
                 int channel, int bins, uint32_t lo, uint32_t hi, uint32_t *d_hist, uint32_t *d_clear, void *stream);

/* cuda/ops/equalize.cu: OpenCV equalizeHist on u8 images (histogram, LUT, lookup on the device,
 * no host round trip).  channels 1: gray; 3 or 4: on luma (OpenCV's YCrCb conversion) or,
 * with per_channel, each colour channel (alpha kept).  d_scratch: gvis_cu_equalize_scratch()
 * bytes, zeroed before the first call and left zeroed by every call. */
size_t gvis_cu_equalize_scratch(void);
int gvis_cu_equalize(const uint8_t *d_src, size_t spitch, uint8_t *d_dst, size_t dpitch, int width, int height,
                     int channels, int per_channel, void *d_scratch, void *stream);

#ifdef __cplusplus
}
#endif
#endif
