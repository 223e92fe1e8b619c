/* Large scratch blocks of SGM on the CPU, kept between calls.
 *
 * A disparity call touches tens of megabytes of fresh memory (costs, partial sums);
 * freed blocks go back to the kernel and the next call pays a page fault and a
 * zeroed page for every 4 KiB again, which costs more than the matching itself on
 * small images.  Blocks given back here are kept (a few, the largest) and handed
 * out again, as OpenCV's StereoSGBM keeps its buffers in the matcher object. */
#include <pthread.h>
#include <stdlib.h>

#include "sgm.h"

#define SLOTS 4

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static void *blocks[SLOTS];
static size_t sizes[SLOTS];

void *gvis_sgm_scratch_take(size_t bytes)
{
    void *p = NULL;
    int best = -1;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < SLOTS; i++)
        if (blocks[i] && sizes[i] >= bytes && (best < 0 || sizes[i] < sizes[best]))
            best = i;
    if (best >= 0) {
        p = blocks[best];
        blocks[best] = NULL;
        sizes[best] = 0;
    }
    pthread_mutex_unlock(&lock);
    return p ? p : malloc(bytes ? bytes : 1);
}

void gvis_sgm_scratch_give(void *p, size_t bytes)
{
    if (!p)
        return;
    int slot = -1;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < SLOTS && slot < 0; i++)
        if (!blocks[i])
            slot = i;
    if (slot < 0) {
        /* all kept: replace the smallest if this one is larger */
        int small = 0;
        for (int i = 1; i < SLOTS; i++)
            if (sizes[i] < sizes[small])
                small = i;
        if (sizes[small] < bytes) {
            void *old = blocks[small];
            blocks[small] = p;
            sizes[small] = bytes;
            p = old;
        }
    } else {
        blocks[slot] = p;
        sizes[slot] = bytes;
        p = NULL;
    }
    pthread_mutex_unlock(&lock);
    free(p);
}
