// File: exporter/status_page_html.h
//
// exporter/status_page.html's bytes, compiled in (status_page_html.cc is
// written by CMake from the .html file at build time).
#ifndef CARBONROUTE_EXPORTER_STATUS_PAGE_HTML_H_
#define CARBONROUTE_EXPORTER_STATUS_PAGE_HTML_H_

namespace carbonroute::exporter {

extern const char kStatusPageHtml[];

}  // namespace carbonroute::exporter

#endif  // CARBONROUTE_EXPORTER_STATUS_PAGE_HTML_H_
