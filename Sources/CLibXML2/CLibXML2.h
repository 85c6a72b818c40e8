#ifndef RELAYFETCH_CLIBXML2_H
#define RELAYFETCH_CLIBXML2_H
// libxml2's headers pull in ICU when LIBXML_ICU_ENABLED is set, and ICU's UErrorCode clashes
// with the ICU bundled in Foundation; we never use ICU-dependent structs, so switch it off.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/HTMLparser.h>
#include <libxml/HTMLtree.h>
#include <libxml/xpath.h>
#include <libxml/tree.h>
#include <libxml/parserInternals.h>
#include <libxml/encoding.h>
#include <libxml/SAX2.h>
#include <stdlib.h>
// Test support validates the JUnit XML we write against our schema (Tests/.../junit.xsd).
#include <libxml/xmlschemas.h>

// The parser context is only touched through these accessors, never as a struct in Swift.
static inline xmlDocPtr rf_html_ctxt_take_doc(htmlParserCtxtPtr ctxt) { xmlDocPtr doc = ctxt->myDoc; ctxt->myDoc = NULL; return doc; }
static inline xmlDocPtr rf_html_ctxt_doc(htmlParserCtxtPtr ctxt) { return ctxt->myDoc; }
// libxml2 gives a bare HTML 4 boolean attribute (`<input checked>`) its own name as value, so it
// would read and serialize as checked="checked"; browsers give every bare attribute "". This
// start-element handler passes "" for a missing value to libxml2's own tree builder.
static inline void rf_html_start_element(void *ctx, const xmlChar *name, const xmlChar **atts) {
    size_t count = 0;
    int bare = 0;
    while (atts != NULL && atts[count] != NULL) { bare |= atts[count + 1] == NULL; count += 2; }
    const xmlChar **copy = bare ? (const xmlChar **)malloc((count + 1) * sizeof(xmlChar *)) : NULL;
    if (copy == NULL) { xmlSAX2StartElement(ctx, name, atts); return; }
    for (size_t i = 0; i < count; i += 2) {
        copy[i] = atts[i];
        copy[i + 1] = atts[i + 1] != NULL ? atts[i + 1] : (const xmlChar *)"";
    }
    copy[count] = NULL;
    xmlSAX2StartElement(ctx, name, copy);
    free((void *)copy);
}
static inline void rf_html_ctxt_keep_bare_attributes_empty(htmlParserCtxtPtr ctxt) { ctxt->sax->startElement = rf_html_start_element; }
// xmlFree is a global function-pointer variable; call it through a function.
static inline void rf_xmlFree(void *p) { xmlFree(p); }

// libxml2 reports some failures (an encoding conversion a page's bytes break, its I/O layer)
// through its generic error handler, which prints to stderr whatever HTML_PARSE_NOERROR says, so
// a hostile page could write to our stderr. The handler is variadic, hence C; it drops them.
static inline void rf_xml_drop_error(void *context, const char *message, ...) { (void)context; (void)message; }
// Sets that handler for the calling thread and, as the default, for each thread libxml2 first
// sees afterwards (libxml2 keeps the handler per thread).
static inline void rf_xml_drop_generic_errors(void) {
    xmlThrDefSetGenericErrorFunc(NULL, rf_xml_drop_error);
    xmlSetGenericErrorFunc(NULL, rf_xml_drop_error);
}

// LIBXML_DOTTED_VERSION is a string macro; Swift sees it through this function.
static inline const char *rf_libxml_dotted_version(void) { return LIBXML_DOTTED_VERSION; }
#endif
