/* One output stream of several inputs (hist's CSV, yolo-decode's JSON Lines to standard
 * output): each file's text is kept while it runs, on whichever thread, and written to
 * the stream when the file is reported, in input order. */
#include <string.h>

#include "cli.h"

static int on;
static const char *head = "", *sep = "";
static int items; /* files that wrote to the stream */

/* The current file's writes to "-" on this thread (NULL: straight to standard output). */
static _Thread_local gvis_buf *capture;
static _Thread_local int *captured;

void cli_set_stream(const char *h, const char *s)
{
    on = 1;
    head = h ? h : "";
    sep = s ? s : "";
    items = 0;
}

int cli_stream_on(void) { return on; }

int cli_stream_items(void) { return items; }

void cli_stream_capture(gvis_buf *b, int *wrote)
{
    capture = b;
    captured = wrote;
}

int cli_stream_capturing(void) { return capture != NULL; }

int cli_stream_take(const gvis_buf *b)
{
    *captured = 1;
    return b->len ? gvis_buf_append(capture, b->data, b->len) : GVIS_OK;
}

int cli_stream_flush(gvis_ctx *ctx, const gvis_buf *b, int wrote)
{
    if (!wrote)
        return GVIS_OK;
    const char *lead = items++ ? sep : head;
    gvis_buf all = {0};
    int rc = GVIS_OK;
    if (*lead)
        rc = gvis_buf_append(&all, lead, strlen(lead));
    if (!rc && b->len)
        rc = gvis_buf_append(&all, b->data, b->len);
    if (!rc)
        rc = cli_write_output(ctx, "-", &all);
    gvis_buf_free(&all);
    return rc;
}
