"""Writes a generated site for crawl tests into --out: an index, --pages linked pages (a tree,
so every page is reachable, with links written in many spellings of the same URL), a private
section robots.txt disallows, a text file, an out-of-scope link, robots.txt naming a sitemap index
(sitemap.xml) whose gzip sitemap lists pages no link reaches, and expected.txt: the paths a polite
crawl from / must fetch, one a line.

Link spellings per page: plain relative, "./", "../pages/./", a fragment, an upper-case
percent-escape of an unreserved letter, and a "?utm_source=" variant (the same page once the
crawler strips utm_source).
"""
import argparse
import os


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", required=True)
    parser.add_argument("--pages", type=int, default=300)
    parser.add_argument("--crawl-delay", help="a Crawl-delay line for the * group")
    args = parser.parse_args()
    n = args.pages
    os.makedirs(os.path.join(args.out, "pages"), exist_ok=True)
    os.makedirs(os.path.join(args.out, "private"), exist_ok=True)
    os.makedirs(os.path.join(args.out, "files"), exist_ok=True)
    os.makedirs(os.path.join(args.out, "flaky"), exist_ok=True)

    def write(path, text):
        with open(os.path.join(args.out, path), "w") as f:
            f.write(text)

    def page(title, links):
        items = "\n".join('<li><a href="%s">%s</a></li>' % (href, href) for href in links)
        return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>%s</title></head>\n"
                "<body><h1>%s</h1><ul>\n%s\n</ul></body></html>\n" % (title, title, items))

    write("index.html", page("crawl test site", [
        "pages/page-0.html", "/pages/page-1.html#top", "./pages/page-2.html?utm_source=index",
        "/private/secret.html", "files/data.txt", "https://origin2.test/elsewhere.html",
        "mailto:someone@origin.test", "#top", "javascript:void(0)",
    ]))
    for i in range(n):
        links = []
        for j in (2 * i + 1, 2 * i + 2, i + 1):
            if j < n:
                links.append("page-%d.html" % j)
        links += [
            "./page-%d.html#section" % ((i + 3) % n),
            "../pages/./page-%d.html" % ((i + 5) % n),
            "/pages/%%70age-%d.html" % ((i + 7) % n),  # %70 is "p"
            "/pages/page-%d.html?utm_source=feed" % ((i + 11) % n),
            "/",
        ]
        write("pages/page-%d.html" % i, page("page %d" % i, links))
    write("private/secret.html", page("secret", ["/private/deeper.html"]))
    write("private/deeper.html", page("deeper", []))
    write("files/data.txt", "plain text, no links: <a href=\"/pages/never.html\">not parsed</a>\n")
    write("flaky/index.html", page("flaky", ["one.html", "two.html"]))
    write("flaky/one.html", page("flaky one", []))
    write("flaky/two.html", page("flaky two", []))
    # @ORIGIN@ is replaced by the serving origin (static_origin.py knows its port); the sitemap
    # index points to a gzip sitemap (served gzipped on the fly) that lists pages no link reaches.
    write("robots.txt", "# crawl test site\nUser-agent: otherbot\nDisallow: /\n\n"
          "User-agent: *\nDisallow: /private/\nAllow: /private/public.html\n%s\n"
          % ("Crawl-delay: %s\n" % args.crawl_delay if args.crawl_delay else "") +
          "Sitemap: @ORIGIN@/sitemap.xml\n")
    write("sitemap.xml", '<?xml version="1.0" encoding="UTF-8"?>\n'
          '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
          '  <sitemap><loc>@ORIGIN@/sitemap-pages.xml.gz</loc></sitemap>\n</sitemapindex>\n')
    orphans = ["/pages/orphan-%d.html" % i for i in range(3)]
    for path in orphans:
        write(path.lstrip("/"), page("orphan", ["/"]))
    urls = "\n".join("  <url><loc>@ORIGIN@%s</loc></url>" % path
                     for path in ["/pages/page-%d.html" % i for i in range(min(n, 5))] + orphans)
    write("sitemap-pages.xml", '<?xml version="1.0" encoding="UTF-8"?>\n'
          '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n%s\n</urlset>\n' % urls)
    expected = (["/", "/files/data.txt", "/sitemap.xml", "/sitemap-pages.xml.gz"] + orphans
                + ["/pages/page-%d.html" % i for i in range(n)])
    write("expected.txt", "\n".join(expected) + "\n")


main()
