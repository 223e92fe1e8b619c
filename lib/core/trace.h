/* A timeline of a batch (GVIS_TRACE=FILE): each thread of the pipeline (readers, compute
 * threads, writers, the GPUs' JPEG decoder threads) records what it did when, as spans;
 * gvis_trace_write (gvis.h) writes them as a Chrome trace (JSON: chrome://tracing,
 * ui.perfetto.dev), which scripts/trace-summary turns into busy fractions over time.
 * Off (one cached getenv) unless GVIS_TRACE is set.  Thread-safe. */
#ifndef GVIS_TRACE_H
#define GVIS_TRACE_H

/* 1 when GVIS_TRACE names a file. */
int gvis_trace_on(void);
/* Names the calling thread in the trace ("reader", 3 -> "reader 3"; id < 0: what alone). */
void gvis_trace_thread(const char *what, int id);
/* A span of the calling thread from t0 to t1 (gvis_now_ms), name a string that lives as
 * long as the process, arg a number shown with it (an index, a batch size). */
void gvis_trace_span(const char *name, double t0, double t1, long arg);

#endif
