/* Output sets (lib/io/outset.c): all of a set's files or none, existing files untouched on
 * failure, nesting, the one-output case, mkdir -p. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testlib.h"

static char dir[PATH_MAX / 2];

static const char *P(const char *name)
{
    static char b[4][PATH_MAX];
    static int k;
    k = (k + 1) % 4;
    snprintf(b[k], sizeof b[k], "%s/%s", dir, name);
    return b[k];
}

static int exists(const char *p) { return access(p, F_OK) == 0; }

static int content_is(const char *p, const char *want)
{
    char got[256] = "";
    FILE *f = fopen(p, "rb");
    if (!f)
        return 0;
    size_t n = fread(got, 1, sizeof got - 1, f);
    fclose(f);
    got[n] = 0;
    return strcmp(got, want) == 0;
}

/* the files in dir, temporaries (".NAME.gvis-XXXXXX") counted apart */
static int temps(void)
{
    char cmd[PATH_MAX + 64];
    snprintf(cmd, sizeof cmd, "ls -aR '%s' | grep -c '\\.gvis-'", dir);
    FILE *f = popen(cmd, "r");
    int n = 0;
    if (f) {
        if (fscanf(f, "%d", &n) != 1)
            n = 0;
        pclose(f);
    }
    return n;
}

int main(void)
{
    snprintf(dir, sizeof dir, "%s/gvis-outset-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir))
        return 1;

    /* two files, committed: both in place */
    gvis_outset *s = gvis_outset_begin();
    CHECK(s && gvis_outset_current() == s);
    CHECK_OK(gvis_outset_put(s, P("a.txt"), "A", 1));
    CHECK_OK(gvis_write_file_atomic(P("b.txt"), "B", 1)); /* lands in the current set */
    CHECK(gvis_outset_count(s) == 2);
    CHECK(!exists(P("a.txt")) && !exists(P("b.txt")));
    CHECK(temps() == 2);
    CHECK_OK(gvis_outset_commit(s));
    CHECK(gvis_outset_current() == NULL);
    CHECK(content_is(P("a.txt"), "A") && content_is(P("b.txt"), "B"));
    CHECK(temps() == 0);

    /* aborted: no new file, an existing one keeps its bytes */
    s = gvis_outset_begin();
    CHECK_OK(gvis_outset_put(s, P("a.txt"), "new", 3));
    CHECK_OK(gvis_outset_put(s, P("c.txt"), "C", 1));
    gvis_outset_abort(s);
    CHECK(content_is(P("a.txt"), "A") && !exists(P("c.txt")) && temps() == 0);

    /* a second output that cannot be written: the first is not put in place either */
    s = gvis_outset_begin();
    CHECK_OK(gvis_outset_put(s, P("d.txt"), "D", 1));
    CHECK(gvis_outset_put(s, P("no/such/dir/e.txt"), "E", 1) == GVIS_E_IO);
    CHECK(strstr(gvis_errmsg(), "no/such/dir/e.txt") != NULL);
    gvis_outset_abort(s);
    CHECK(!exists(P("d.txt")) && temps() == 0);

    /* a stream that fails at commit (/dev/full): no file renamed */
    if (exists("/dev/full")) {
        s = gvis_outset_begin();
        CHECK_OK(gvis_outset_put(s, P("f.txt"), "F", 1));
        CHECK_OK(gvis_outset_put(s, "/dev/full", "x", 1));
        CHECK(gvis_outset_commit(s) == GVIS_E_IO);
        CHECKF(strstr(gvis_errmsg(), "/dev/full") != NULL, "%s", gvis_errmsg());
        CHECK(!exists(P("f.txt")) && temps() == 0);
    }

    /* the same target twice: the later bytes */
    s = gvis_outset_begin();
    CHECK_OK(gvis_outset_put(s, P("g.txt"), "one", 3));
    CHECK_OK(gvis_outset_put(s, P("g.txt"), "two", 3));
    CHECK(gvis_outset_count(s) == 1 && temps() == 1);
    CHECK_OK(gvis_outset_commit(s));
    CHECK(content_is(P("g.txt"), "two") && temps() == 0);

    /* nesting: the inner set commits on its own; the outer's abort takes only its own */
    gvis_outset *outer = gvis_outset_begin();
    CHECK_OK(gvis_write_file_atomic(P("outer.txt"), "O", 1));
    gvis_outset *inner = gvis_outset_begin();
    CHECK(gvis_outset_current() == inner);
    CHECK_OK(gvis_write_file_atomic(P("inner.txt"), "I", 1));
    CHECK_OK(gvis_outset_commit(inner));
    CHECK(gvis_outset_current() == outer);
    CHECK(content_is(P("inner.txt"), "I") && !exists(P("outer.txt")));
    gvis_outset_abort(outer);
    CHECK(!exists(P("outer.txt")) && gvis_outset_current() == NULL && temps() == 0);

    /* no set: gvis_write_file_atomic writes at once, as a set of one */
    CHECK_OK(gvis_write_file_atomic(P("h.txt"), "H", 1));
    CHECK(content_is(P("h.txt"), "H") && temps() == 0);
    CHECK(gvis_write_file_atomic(P("nodir/h.txt"), "H", 1) == GVIS_E_IO);
    CHECK(gvis_write_file_atomic(dir, "H", 1) == GVIS_E_IO); /* a directory */

    /* an image through the encoder entry point */
    gvis_image img;
    t_make(&img, 7, 5, 3, GVIS_U8, 0, 0);
    s = gvis_outset_begin();
    CHECK_OK(gvis_outset_put_image(s, P("i.png"), GVIS_FMT_NONE, NULL, &img));
    CHECK(gvis_outset_put_image(s, P("i.unknown"), GVIS_FMT_NONE, NULL, &img) == GVIS_E_ARG);
    CHECK_OK(gvis_outset_commit(s));
    gvis_buf b = {0};
    CHECK_OK(gvis_read_file(P("i.png"), &b, 0));
    gvis_image back = {0};
    gvis_io_opts io = {0};
    CHECK_OK(gvis_image_decode(b.data, b.len, &io, &back));
    CHECK(t_equal(&img, &back));
    gvis_image_free(&back);
    gvis_buf_free(&b);
    gvis_image_free(&img);

    /* checks before the work */
    CHECK_OK(gvis_outset_check(P("new.txt")));
    CHECK_OK(gvis_outset_check("-"));
    CHECK(gvis_outset_check(P("nodir/x.txt")) == GVIS_E_IO);
    CHECK(gvis_outset_check(P("x/")) == GVIS_E_IO);

    /* mkdir -p */
    CHECK_OK(gvis_mkdir_p(P("x/y/z/")));
    struct stat st;
    CHECK(stat(P("x/y/z"), &st) == 0 && S_ISDIR(st.st_mode));
    CHECK_OK(gvis_mkdir_p(P("x/y/z"))); /* again: fine */
    CHECK(gvis_mkdir_p(P("h.txt/sub/")) == GVIS_E_IO);

    /* a batch's inputs: by name, through a symlink or a hard link, never "-" or a new name */
    {
        char in_a[PATH_MAX], in_b[PATH_MAX], link_a[PATH_MAX], hard_b[PATH_MAX];
        snprintf(in_a, sizeof in_a, "%s", P("a.txt"));
        snprintf(in_b, sizeof in_b, "%s", P("b.txt"));
        snprintf(link_a, sizeof link_a, "%s", P("link-a.txt"));
        snprintf(hard_b, sizeof hard_b, "%s", P("hard-b.txt"));
        CHECK(symlink(in_a, link_a) == 0 && link(in_b, hard_b) == 0);
        const char *ins[] = {in_b, "-", in_a, P("missing.txt")};
        gvis_fileset *fs = gvis_fileset_new(ins, 4);
        CHECK(fs != NULL);
        CHECK(gvis_fileset_has(fs, in_a) && gvis_fileset_has(fs, in_b));
        CHECK(gvis_fileset_has(fs, link_a)); /* the same file as a.txt */
        CHECK(gvis_fileset_has(fs, hard_b)); /* the same inode as b.txt */
        CHECK(gvis_fileset_has(fs, ins[3]));  /* named, though it does not exist */
        CHECK(!gvis_fileset_has(fs, "-") && !gvis_fileset_has(fs, P("h.txt")) && !gvis_fileset_has(fs, P("new.txt")));
        CHECK(!gvis_fileset_has(NULL, in_a));
        gvis_fileset_free(fs);
        gvis_fileset *none = gvis_fileset_new(NULL, 0);
        CHECK(none && !gvis_fileset_has(none, in_a));
        gvis_fileset_free(none);
        /* as many inputs as a data set: each answer is one stat and two searches */
        enum { MANY = 5000 };
        char **many = calloc(MANY, sizeof *many);
        for (int i = 0; many && i < MANY; i++) {
            many[i] = malloc(32);
            snprintf(many[i], 32, "in/%05d.png", i);
        }
        gvis_fileset *big = many ? gvis_fileset_new((const char *const *)many, MANY) : NULL;
        CHECK(big && gvis_fileset_has(big, "in/00000.png") && gvis_fileset_has(big, "in/04999.png"));
        CHECK(big && !gvis_fileset_has(big, "in/5000.png") && !gvis_fileset_has(big, "out/00001.png"));
        gvis_fileset_free(big);
        for (int i = 0; many && i < MANY; i++)
            free(many[i]);
        free(many);
    }

    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return t_done("test_outset");
}
