"""The peer for the crawl benchmark: Scrapy crawling the same generated site through the same
relay (squid's plain http:// port, where Scrapy tunnels https with CONNECT and sends our
Proxy-Authorization token), with the same scope: same host, robots.txt obeyed, utm_source
stripped, every page fetched once.

Usage: scrapy_spider.py START_URL PROXY_URL TOKEN CONCURRENCY
"""
import sys
import urllib.parse

import scrapy
from scrapy.crawler import CrawlerProcess
from scrapy.linkextractors import LinkExtractor
from scrapy.spiders import CrawlSpider, Rule

start, proxy, token, concurrency = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
host = urllib.parse.urlsplit(start).netloc


def strip_utm(url):
    parts = urllib.parse.urlsplit(url)
    query = [(k, v) for k, v in urllib.parse.parse_qsl(parts.query, keep_blank_values=True) if k != "utm_source"]
    return urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(query), fragment=""))


class ThroughRelay:
    """Every request (robots.txt included) goes through the relay with its token."""

    def process_request(self, request, spider=None):
        request.meta["proxy"] = proxy
        request.headers["Proxy-Authorization"] = token


class SiteSpider(CrawlSpider):
    name = "site"
    start_urls = [start]
    # allow_domains compares host:port (Scrapy matches the URL's netloc).
    rules = [Rule(LinkExtractor(allow_domains=[host], process_value=strip_utm), callback="parse_page", follow=True)]

    async def start(self):
        # Filtered like every other request, so a later link back to "/" is not fetched again.
        yield scrapy.Request(start)

    def parse_start_url(self, response, **kwargs):
        return self.parse_page(response)

    def parse_page(self, response):
        self.crawler.stats.inc_value("bench/pages")
        return None


process = CrawlerProcess(settings={
    "LOG_LEVEL": "WARNING",
    "ROBOTSTXT_OBEY": True,
    "CONCURRENT_REQUESTS": concurrency,
    "CONCURRENT_REQUESTS_PER_DOMAIN": concurrency,
    "CONCURRENT_ITEMS": 8,
    "DOWNLOAD_DELAY": 0,
    "TELNETCONSOLE_ENABLED": False,
    "DOWNLOADER_MIDDLEWARES": {"__main__.ThroughRelay": 700},
    "REQUEST_FINGERPRINTER_IMPLEMENTATION": "2.7",
})
process.crawl(SiteSpider)
process.start()
