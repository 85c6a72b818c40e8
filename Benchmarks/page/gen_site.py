#!/usr/bin/env python3
"""Generates the benchmark page: one HTML document on www.page.test and 60 subresources spread
over three origins (www, static and img .page.test): images, style sheets, scripts and fonts,
with style sheets that reference further images and fonts (a second level of discovery).

Usage: gen_site.py OUTPUT_DIR       (writes OUTPUT_DIR/<host>/... and OUTPUT_DIR/manifest.json)

Everything is deterministic (seeded), small enough that each origin connection's responses of
one discovery level fit in TCP's initial congestion window (10 segments), so the page load is
bound by round trips, not bandwidth; the manifest records the bytes per origin and level.
"""
import json
import os
import random
import struct
import sys
import zlib

WWW, STATIC, IMG = "www.page.test", "static.page.test", "img.page.test"
rng = random.Random(20240611)


def png(side):
    """A valid side x side RGB PNG of noise (incompressible, so its size is predictable)."""
    raw = b"".join(b"\x00" + bytes(rng.randrange(256) for _ in range(side * 3)) for _ in range(side))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def padding(size, line):
    """Comment lines of filler up to about size bytes."""
    out, n = [], 0
    while n < size:
        text = f"/* {line} {len(out):03d}: " + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz ") for _ in range(60)) + " */\n"
        out.append(text)
        n += len(text)
    return "".join(out)


def fake_font(size):
    # A WOFF2 signature and noise: every client fetches it; a browser's font sanitizer rejects
    # it, which still counts as a finished font load for the load event.
    return b"wOF2" + bytes(rng.randrange(256) for _ in range(size - 4))


def main():
    out = sys.argv[1]
    files = {}  # (host, path) -> bytes
    level = {}  # (host, path) -> discovery level (0 = the HTML, 1 = named by it, 2 = named by CSS)
    referrer = {}

    def add(host, path, data, lvl, ref):
        files[(host, path)] = data if isinstance(data, bytes) else data.encode()
        level[(host, path)] = lvl
        referrer[(host, path)] = ref

    # Level 2 first: what the style sheets reference.
    fonts = [f"/fonts/face{i}.woff2" for i in range(1, 7)]
    static_bg = [f"/bg/s{i:02d}.png" for i in range(1, 7)]
    img_bg_site = [f"/bg/i{i:02d}.png" for i in range(1, 3)]   # from www's site.css
    img_bg_theme = [f"/bg/i{i:02d}.png" for i in range(3, 5)]  # from static's theme.css
    for path in fonts:
        add(STATIC, path, fake_font(1400), 2, "fonts.css")
    for path in static_bg:
        add(STATIC, path, png(12), 2, "layout.css")
    for path in img_bg_site:
        add(IMG, path, png(12), 2, "site.css")
    for path in img_bg_theme:
        add(IMG, path, png(12), 2, "theme.css")

    # Style sheets (level 1) and the classes that make their url()s apply.
    classes = []
    fonts_css = ""
    for i, path in enumerate(fonts, 1):
        fonts_css += (f"@font-face {{ font-family: 'Face{i}'; src: url('{path}') format('woff2'); font-display: swap; }}\n"
                      f".face{i} {{ font-family: 'Face{i}', sans-serif; }}\n")
        classes.append(f"face{i}")
    layout_css = "".join(f".tile{i} {{ background-image: url('{path}'); width: 12px; height: 12px; display: inline-block; }}\n"
                         for i, path in enumerate(static_bg, 1))
    classes += [f"tile{i}" for i in range(1, len(static_bg) + 1)]
    theme_css = "".join(f".band{i} {{ background: url('https://{IMG}{path}') repeat-x; height: 12px; }}\n"
                        for i, path in enumerate(img_bg_theme, 1))
    classes += [f"band{i}" for i in range(1, len(img_bg_theme) + 1)]
    site_css = "body { margin: 1em; font: 14px sans-serif; }\nimg { margin: 2px; }\n" + "".join(
        f".hero{i} {{ background: url('https://{IMG}{path}'); height: 12px; }}\n" for i, path in enumerate(img_bg_site, 1))
    classes += [f"hero{i}" for i in range(1, len(img_bg_site) + 1)]
    add(STATIC, "/css/fonts.css", fonts_css + padding(400, "fonts"), 1, "index.html")
    add(STATIC, "/css/layout.css", layout_css + padding(600, "layout"), 1, "index.html")
    add(STATIC, "/css/theme.css", theme_css + padding(600, "theme"), 1, "index.html")
    add(WWW, "/css/site.css", site_css + padding(800, "site"), 1, "index.html")

    # Scripts and images named by the HTML (level 1).
    scripts = [f"https://{STATIC}/js/lib{i}.js" for i in range(1, 6)] + ["/js/main.js"]
    for url in scripts:
        host, path = (STATIC, url.split(STATIC, 1)[1]) if STATIC in url else (WWW, url)
        add(host, path, f"window.benchScripts = (window.benchScripts || 0) + 1;\n" + padding(1100, "script"), 1, "index.html")
    www_imgs = [f"/img/w{i:02d}.png" for i in range(1, 19)]
    img_imgs = [f"https://{IMG}/img/p{i:02d}.png" for i in range(1, 17)]
    for path in www_imgs:
        add(WWW, path, png(12), 1, "index.html")
    for url in img_imgs:
        add(IMG, url.split(IMG, 1)[1], png(12), 1, "index.html")

    # The HTML. Its inline script (Chromium only; relayfetch and wget run no JavaScript) writes the
    # navigation timing into the DOM once the load event has finished, for --dump-dom to print.
    styles = [f"https://{STATIC}/css/fonts.css", f"https://{STATIC}/css/layout.css",
              f"https://{STATIC}/css/theme.css", "/css/site.css"]
    body = "\n".join(f'<div class="{c}">{c} The quick brown fox</div>' for c in classes)
    html = f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>relayfetch page benchmark</title>
{chr(10).join(f'<link rel="stylesheet" href="{s}">' for s in styles)}
{chr(10).join(f'<script src="{s}" defer></script>' for s in scripts)}
<script>
addEventListener('load', function () {{
  setTimeout(function () {{
    var n = performance.getEntriesByType('navigation')[0];
    var r = performance.getEntriesByType('resource');
    var pre = document.createElement('pre');
    pre.id = 'bench-timing';
    pre.textContent = JSON.stringify({{loadEventEnd: n.loadEventEnd, loadEventStart: n.loadEventStart,
      domContentLoaded: n.domContentLoadedEventEnd, timeOrigin: performance.timeOrigin,
      scripts: window.benchScripts || 0, resources: r.length}});
    document.body.appendChild(pre);
  }}, 0);
}});
</script>
</head>
<body>
<h1>60 subresources on 3 origins</h1>
{body}
<p>
{chr(10).join(f'<img src="{p}" width="12" height="12" alt="">' for p in www_imgs + img_imgs)}
</p>
</body>
</html>
"""
    add(WWW, "/index.html", html, 0, "")

    subresources = [k for k in files if level[k] > 0]
    assert len(subresources) == 60, len(subresources)
    for (host, path), data in files.items():
        target = os.path.join(out, host, path.lstrip("/"))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as file:
            file.write(data)
    summary = {}
    for (host, path), data in files.items():
        entry = summary.setdefault(host, {}).setdefault(f"level{level[(host, path)]}", {"files": 0, "bytes": 0})
        entry["files"] += 1
        entry["bytes"] += len(data)
    manifest = {"origins": [WWW, STATIC, IMG], "url": f"https://{WWW}/", "subresources": len(subresources),
                "totalBytes": sum(len(d) for d in files.values()), "byOriginAndLevel": summary,
                "urls": sorted(f"https://{host}{path}" for host, path in files)}
    with open(os.path.join(out, "manifest.json"), "w") as file:
        json.dump(manifest, file, indent=1, sort_keys=True)
    print(json.dumps(manifest, sort_keys=True))


if __name__ == "__main__":
    main()
