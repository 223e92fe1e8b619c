#!/usr/bin/env python3
"""TIFF files with their own EXIF and GPS directories (lib/io/tiff_exif_read.c): two pages,
either byte order, an 8x4 gray image each, orientation 6, a MakerNote and a UserComment.
One generator for tests/cli/tiff_exif.sh (which runs it: tiff_exif_gen.py DIR writes
DIR/t-II.tif and DIR/t-MM.tif) and for the fuzz seeds of testdata/fuzz/make_seeds.py
(which imports tiff())."""
import struct
import sys


def tiff(order, pages):
    e = '<' if order == 'II' else '>'
    out = bytearray(order.encode() + struct.pack(e + 'H', 42) + b'\0\0\0\0')
    def val(typ, v):
        if typ == 2: return v.encode() + b'\0', len(v) + 1
        if typ in (1, 7): return bytes(v), len(v)
        if typ == 3: return struct.pack(e + '%dH' % len(v), *v), len(v)
        if typ == 4: return struct.pack(e + '%dI' % len(v), *v), len(v)
        if typ == 5: return b''.join(struct.pack(e + 'II', a, b) for a, b in v), len(v)
    def ifd(entries):  # entries: (tag, type, value); returns offset of the directory
        entries = sorted(entries)
        at = len(out); at += at & 1
        out.extend(b'\0' * (at - len(out)))
        body = bytearray(struct.pack(e + 'H', len(entries)))
        data_at = at + 2 + 12 * len(entries) + 4
        data = bytearray()
        for tag, typ, v in entries:
            b, n = val(typ, v)
            if len(b) <= 4:
                body += struct.pack(e + 'HHI', tag, typ, n) + b.ljust(4, b'\0')
            else:
                body += struct.pack(e + 'HHII', tag, typ, n, data_at + len(data))
                data += b + (b'\0' if len(b) & 1 else b'')
        body += b'\0\0\0\0'
        out.extend(body + data)
        return at, at + 2 + 12 * len(entries)  # offset, where its next-IFD field is
    prev = 4
    for make, sub in pages:
        pix = len(out); out.extend(bytes(range(0, 128, 4)))  # 8x4 gray
        ents = [(256, 3, [8]), (257, 3, [4]), (258, 3, [8]), (259, 3, [1]), (262, 3, [1]), (271, 2, make),
                (272, 2, 'T2'), (273, 4, [pix]), (274, 3, [6]), (277, 3, [1]), (278, 3, [4]), (279, 4, [32]),
                (305, 2, 'maker-sw')]
        if sub:
            ex, _ = ifd([(33434, 5, [(1, 250)]), (33437, 5, [(28, 10)]), (36867, 2, '2019:05:06 07:08:09'),
                         (37500, 7, list(range(40))), (37510, 7, list(b'ASCII\0\0\0hello'))])
            gp, _ = ifd([(0, 1, [2, 3, 0, 0]), (1, 2, 'N'), (2, 5, [(48, 1), (51, 1), (0, 1)])])
            ents += [(34665, 4, [ex]), (34853, 4, [gp])]
        at, nxt = ifd(ents)
        out[prev:prev + 4] = struct.pack(e + 'I', at)
        prev = nxt
    return bytes(out)

PAGES = [('Tiffco', True), ('Page2co', False)]

if __name__ == '__main__':
    for order in ('II', 'MM'):
        with open('%s/t-%s.tif' % (sys.argv[1], order), 'wb') as f:
            f.write(tiff(order, PAGES))
