// The whole YOLO pipeline (decode, sort, NMS: a memset and five kernels) as one CUDA
// graph: captured on the first call with a given set of arguments and replayed while
// they stay the same (repeats, and files of one shape in a batch reuse the buffers).
// One graph launch replaces six launches, whose host cost is larger than the kernels'
// work at these sizes.  If capturing fails, the stages are launched one by one.
#include <cuda_runtime.h>
#include <pthread.h>
#include <string.h>

#include "yolo.h"

namespace {

struct key {
    int device;
    const float *pred;
    int layout;
    size_t rows;
    int classes;
    float conf, iou;
    int agnostic, fast, max_det;
    gvis_cu_yolo_scratch s;
    void *out;
    cudaStream_t stream;
};

pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
key cached;
cudaGraphExec_t cached_exec = nullptr;
bool have_cached = false;

int launch_stages(const key &k)
{
    int err = gvis_cu_yolo_decode(k.pred, k.layout, k.rows, k.classes, k.conf, &k.s, k.out, k.stream);
    if (!err)
        err = gvis_cu_yolo_sort(k.rows, &k.s, k.out, k.stream);
    if (!err)
        err = gvis_cu_yolo_nms(k.rows, k.iou, k.agnostic, k.fast, k.max_det, &k.s, k.out, k.stream);
    return err;
}

cudaGraphExec_t capture(const key &k)
{
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    if (cudaStreamBeginCapture(k.stream, cudaStreamCaptureModeThreadLocal) != cudaSuccess) {
        cudaGetLastError();
        return nullptr;
    }
    int err = launch_stages(k);
    cudaError_t end = cudaStreamEndCapture(k.stream, &graph);
    if (!err && end == cudaSuccess && graph && cudaGraphInstantiate(&exec, graph, 0) != cudaSuccess)
        exec = nullptr;
    if (graph)
        cudaGraphDestroy(graph);
    cudaGetLastError(); // a failed capture leaves its error behind; the caller falls back
    return exec;
}

} // namespace

extern "C" int gvis_cu_yolo_run(const float *d_pred, int layout, size_t rows, int classes, float conf, float iou_thr,
                                int agnostic, int fast, int max_det, const gvis_cu_yolo_scratch *s, void *d_out,
                                void *stream)
{
    key k;
    memset(&k, 0, sizeof k); // the padding too: keys are compared with memcmp
    if (cudaGetDevice(&k.device) != cudaSuccess)
        return (int)cudaGetLastError();
    k.pred = d_pred;
    k.layout = layout;
    k.rows = rows;
    k.classes = classes;
    k.conf = conf;
    k.iou = iou_thr;
    k.agnostic = agnostic;
    k.fast = fast;
    k.max_det = max_det;
    k.s = *s;
    k.out = d_out;
    k.stream = (cudaStream_t)stream;
    pthread_mutex_lock(&lock);
    int err;
    if (!have_cached || memcmp(&k, &cached, sizeof k) != 0) {
        if (cached_exec)
            cudaGraphExecDestroy(cached_exec); // an in-flight one is freed when it completes
        cached_exec = nullptr;
        have_cached = false;
        // a first plain run sets up what capturing must not do (module load, device queries)
        err = launch_stages(k);
        if (!err)
            err = (int)cudaStreamSynchronize(k.stream);
        if (!err) {
            cached_exec = capture(k);
            cached = k;
            have_cached = true;
        }
    } else if (cached_exec) {
        err = (int)cudaGraphLaunch(cached_exec, k.stream);
    } else {
        err = launch_stages(k);
    }
    pthread_mutex_unlock(&lock);
    return err;
}
