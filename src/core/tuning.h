/* nodeshm core: settings from the environment or from a tuning file.
 *
 * `nodeshm-bench report` measures this machine and writes the thresholds the library should use
 * into a tuning file; the library reads it, so one command tunes nodeshm for a machine.  The
 * file is NODESHM_TUNING=path, else ${XDG_CONFIG_HOME:-$HOME/.config}/nodeshm/tuning.conf when
 * that exists.  Format: lines NAME=value, '#' comments, blank lines; NAME starts with NODESHM_;
 * spaces around NAME and value are ignored; a name given twice is an error.  The environment
 * wins over the file.
 *
 * Self-contained (libc only): libnodeshm_mpi compiles this file too, without the OpenSHMEM
 * runtime, so errors come back as text for the caller to report the way its face does. */
#ifndef NODESHM_TUNING_H
#define NODESHM_TUNING_H

/* The value of `name`: the environment variable if set, else the tuning file's, else NULL.
 * Loads the file on first use (thread-safe).  A bad file counts as empty here: callers that
 * can fail (init) check nodeshm_tuning_error() first. */
const char *nodeshm_getenv(const char *name);
/* NULL when the tuning file loaded (or there is none); else why not: "tuning file PATH line N:
 * 'TEXT': WHAT" or "cannot read tuning file PATH: REASON". */
const char *nodeshm_tuning_error(void);
/* The tuning file in use, or NULL when there is none (or it is bad). */
const char *nodeshm_tuning_path(void);
/* Settings the file holds (0 when none). */
int nodeshm_tuning_count(void);

#endif
