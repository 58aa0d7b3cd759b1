/* fuzz_units.c: quantities with units (un_parse), the first byte choosing the kind; and the
 * exact writer's promise: a value un_format_exact writes reads back as the same double. */
#include <math.h>

#include "fuzz.h"
#include "units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char text[257], back[64];
    if (!fuzz_text(data, size, 1, text, sizeof text))
        return 0;
    double v, again;
    un_kind kind = (un_kind)(data[0] % 4);
    if (un_parse(text, kind, &v) != 0 || !isfinite(v))
        return 0;
    un_format_exact(v, back, sizeof back);
    if (un_parse(back, kind, &again) != 0 || again != v) {
        fprintf(stderr, "'%s' (kind %d) = %.17g written '%s', read back %.17g\n", text,
                (int)kind, v, back, again);
        abort();
    }
    return 0;
}
