/* Tuning file round trip (src/core/tuning.h): every NAME=VALUE argument must be what
 * nodeshm_getenv(NAME) returns on every PE after shmem_init, and NAME=! means "unset".
 * tests/bench_tuning.sh writes the files (random values, seed printed) and the arguments;
 * words without '=' (expect_failure.sh's tag) are ignored. */
#include "common.h"
#include "core/tuning.h"

#include <string.h>

int main(int argc, char **argv)
{
    shmem_init();
    int me = shmem_my_pe(), n = 0;
    for (int i = 1; i < argc; i++) {
        char name[128];
        const char *eq = strchr(argv[i], '=');
        if (!eq || (size_t)(eq - argv[i]) >= sizeof name) continue;
        memcpy(name, argv[i], (size_t)(eq - argv[i]));
        name[eq - argv[i]] = '\0';
        const char *want = eq + 1, *got = nodeshm_getenv(name);
        if (!strcmp(want, "!"))
            CHECK(got == NULL, "%s: expected unset, got '%s'", name, got);
        else
            CHECK(got && !strcmp(got, want), "%s: expected '%s', got '%s'", name, want,
                  got ? got : "(unset)");
        n++;
    }
    CHECK(n > 0, "no NAME=VALUE arguments: nothing checked");
    CHECK(nodeshm_tuning_error() == NULL, "tuning error: %s", nodeshm_tuning_error());
    if (me == 0)
        printf("tuning file %s: %d settings; %d names checked\n",
               nodeshm_tuning_path() ? nodeshm_tuning_path() : "(none)", nodeshm_tuning_count(), n);
    int rc = test_finish("bench_tuning");
    shmem_finalize();
    return rc;
}
