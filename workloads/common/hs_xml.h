/* hs_xml.h: writing XML text, the one thing every XML writer of hybridsim (the platform
 * generator, strategy files) must do alike: attribute values and element text with XML's special
 * characters escaped. */
#ifndef HS_XML_H
#define HS_XML_H

#include <stdio.h>

/* s with '&', '<', '>' and '"' escaped, fit for a double-quoted attribute or element text. */
void hs_xml_text(FILE *out, const char *s);

#endif
