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
// Test support validates the JUnit XML we write against our schema (Tests/.../junit.xsd).
#include <libxml/xmlschemas.h>

// The parser context is only touched through these accessors, never as a struct in Swift.
static inline xmlDocPtr rf_html_ctxt_take_doc(htmlParserCtxtPtr ctxt) { xmlDocPtr doc = ctxt->myDoc; ctxt->myDoc = NULL; return doc; }
static inline xmlDocPtr rf_html_ctxt_doc(htmlParserCtxtPtr ctxt) { return ctxt->myDoc; }
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
