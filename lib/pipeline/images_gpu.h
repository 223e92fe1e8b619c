/* The device steps of the staged batch's compute stage where JPEG goes through nvJPEG
 * (images.c calls them; docs/notes-nvjpeg.md): a reader's bitstream decoded by the GPU's
 * shared batch decoder into this context's device memory and turned upright there, host
 * images uploaded, results encoded by nvJPEG on the device or downloaded.  Device
 * buffers are the context's job slots 14 (stored / uploaded) and 15 (upright): device
 * operations (op_dev) use the low ones. */
#ifndef GVIS_IMAGES_GPU_H
#define GVIS_IMAGES_GPU_H

#include "gvis.h"
#include "jpeg_batch.h"

/* Waits for the decode stage's answer on req (a reader's bitstream, stored width x
 * height, metadata meta, its orientation still to apply unless the context's
 * --no-autorotate) and gives *out, upright, on the context's GPU (the stage's buffer
 * itself, or a copy in slot 14 or 15); meta is then marked upright.  0 decoded;
 * GVIS_NVJ_DECLINED (internal.h) when nvJPEG refused or failed on the file, or where the
 * GPU has no hardware decoder under --jpeg-codec auto (decode it on the CPU); a gvis
 * status (GVIS_E_DEVICE...) when the device failed, with the message set (under
 * --jpeg-codec nvjpeg the file then fails, as phase B's decode did).  The caller gives
 * req back (gvis_jbatch_release) once its stream is done with *out. */
int gvis_gpu_decode(gvis_ctx *c, gvis_jbatch_req *req, gvis_meta *meta, gvis_dev_image *out);
/* img into the context's slot 14. */
int gvis_gpu_upload(gvis_ctx *c, const gvis_image *img, gvis_dev_image *out);
/* d into a new host image *img (allocated here: a lent buffer takes it), meta copied. */
int gvis_gpu_download(gvis_ctx *c, const gvis_dev_image *d, const gvis_meta *meta, gvis_image *img);
/* d as a JPEG file into b by nvJPEG with meta's markers: GVIS_OK, an error, or
 * GVIS_NVJ_DECLINED (not a JPEG nvJPEG encodes: the writer's CPU codec does). */
int gvis_gpu_encode(gvis_ctx *c, const gvis_dev_image *d, gvis_meta *meta, gvis_buf *b);
/* The GPUs of a device list (n of them, distinct) read each other's memory directly where
 * the machine allows (peer access over NVLink or PCIe), so that a file decoded on one and
 * computed on another is one device-to-device copy; c logs, at -v, which pairs could. */
void gvis_gpu_link_devices(gvis_ctx *c, const int *dev, int n);
/* A reader thread of such a batch lowers its own scheduling priority, once (Linux: nice
 * + GVIS_JPEG_READER_NICE, default 5; 0 leaves it): its libjpeg-turbo decodes of the files
 * the engines refuse then yield the cores to the decode stage's threads, whose
 * nvjpegDecodeBatched calls ran 3-4x slower while the readers kept every core busy
 * (docs/notes-nvjpeg.md). */
void gvis_gpu_reader_nice(void);

#endif
