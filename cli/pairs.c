/* disparity --left-dir L --right-dir R: the image files of L paired by name with R's. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int is_image_name(const char *name)
{
    gvis_format f = gvis_format_from_path(name);
    return f != GVIS_FMT_NONE && f != GVIS_FMT_CSV && f != GVIS_FMT_JSON && f != GVIS_FMT_TXT && f != GVIS_FMT_PLY;
}

/* The image file names (not paths) of dir, sorted; NULL after reporting an error. */
static char **list_dir(const char *dir, int *n)
{
    DIR *d = opendir(dir);
    if (!d) {
        cli_error("'%s': %s", dir, strerror(errno));
        return NULL;
    }
    int cap = 64, cnt = 0;
    char **v = malloc(sizeof *v * (size_t)cap);
    struct dirent *e;
    size_t dl = strlen(dir);
    while (v && (e = readdir(d))) {
        if (e->d_name[0] == '.' || !is_image_name(e->d_name))
            continue;
        size_t len = dl + 1 + strlen(e->d_name) + 1;
        char *p = malloc(len);
        struct stat st;
        if (p)
            snprintf(p, len, "%s/%s", dir, e->d_name);
        int plain = p && stat(p, &st) == 0 && !S_ISDIR(st.st_mode);
        free(p);
        if (!plain)
            continue;
        if (cnt == cap) {
            char **nv = realloc(v, sizeof *v * (size_t)(cap *= 2));
            if (!nv) {
                for (int i = 0; i < cnt; i++)
                    free(v[i]);
                free(v);
                v = NULL;
                break;
            }
            v = nv;
        }
        if (!(v[cnt] = strdup(e->d_name)))
            break;
        cnt++;
    }
    closedir(d);
    if (!v) {
        cli_error("out of memory");
        return NULL;
    }
    qsort(v, (size_t)cnt, sizeof *v, cmp_str);
    *n = cnt;
    return v;
}

static void free_names(char **v, int n)
{
    for (int i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

/* DIR/NAME appended to b, NUL ended; its offset in *off. */
static int add_path(gvis_buf *b, const char *dir, const char *name, size_t *off)
{
    size_t dl = strlen(dir);
    while (dl > 1 && dir[dl - 1] == '/')
        dl--;
    *off = b->len;
    return gvis_buf_printf(b, "%.*s/%s", (int)dl, dir, name) || gvis_buf_append(b, "", 1);
}

int cli_pair_dirs(const char *ldir, const char *rdir, char ***paths, int *npairs, char **text, int *missing)
{
    int nl = 0, nr = 0;
    char **l = list_dir(ldir, &nl);
    char **r = l ? list_dir(rdir, &nr) : NULL;
    if (!l || !r) {
        free_names(l, nl);
        return EXIT_RUNTIME;
    }
    /* both sorted: one merge pass finds the common names and those without a partner */
    gvis_buf b = {0};
    size_t *offs = malloc(sizeof *offs * 2 * (size_t)(nl < nr ? nl : nr) + sizeof *offs);
    int i = 0, k = 0, n = 0, rc = offs ? 0 : -1;
    *missing = 0;
    while (!rc && (i < nl || k < nr)) {
        int c = i >= nl ? 1 : k >= nr ? -1 : strcmp(l[i], r[k]);
        if (c == 0) {
            rc = add_path(&b, ldir, l[i++], &offs[2 * n]);
            if (!rc)
                rc = add_path(&b, rdir, r[k++], &offs[2 * n + 1]);
            n++;
        } else if (c < 0) {
            cli_error("'%s/%s': no file of that name in '%s' (--right-dir)", ldir, l[i++], rdir);
            ++*missing;
        } else {
            cli_error("'%s/%s': no file of that name in '%s' (--left-dir)", rdir, r[k++], ldir);
            ++*missing;
        }
    }
    free_names(l, nl);
    free_names(r, nr);
    char **v = rc || !n ? NULL : malloc(sizeof *v * 2 * (size_t)n);
    if (rc || (n && !v)) {
        free(offs);
        gvis_buf_free(&b);
        cli_error("out of memory");
        return EXIT_RUNTIME;
    }
    if (!n) {
        free(offs);
        gvis_buf_free(&b);
        return cli_usage_error("'%s' and '%s' have no image file name in common: nothing to pair", ldir, rdir);
    }
    for (int j = 0; j < 2 * n; j++)
        v[j] = (char *)b.data + offs[j];
    free(offs);
    *paths = v;
    *npairs = n;
    *text = (char *)b.data;
    return -1;
}
