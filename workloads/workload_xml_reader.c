/* workload_xml_reader.c: the number parsers both halves of the workload XML reader use
 * (workload_xml_reader.h): workload_xml.c reads the document, workload_xml_layer.c one
 * <layer>, and both sit above this file. */
#include "workload_xml_reader.h"

#include <errno.h>
#include <stdlib.h>

int xr_parse_real(const char *text, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    while (*end == ' ')
        end++;
    if (end == text || *end || errno == ERANGE || !(v >= 0) || v > 1e12)
        return -1;
    *out = v;
    return 0;
}

int xr_parse_int(const char *text, long long min, long long max, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    while (*end == ' ')
        end++;
    if (end == text || *end || errno == ERANGE || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}
