/* kenso_git._expand: the compound-term expansion of a chunk's text (spec §3.7), compiled.
 *
 * content_expansion(text) returns the same list as the Python reference
 * kenso_git.terms.python_content_expansion: the lowercased parts of every compound
 * whitespace token, first-seen order, no repeats. A Hypothesis test holds the two equal.
 * This runs over every chunk of a cold ingest, where the Python version costs more than
 * half of the parsing workers' time.
 *
 * Per token (a run of non-whitespace, as str.split() sees it):
 *   1. strip the characters of STRIP from both ends;
 *   2. the token is a candidate when it holds '_' or '/', a '-' or '.' between two
 *      letters, or a camelCase break (a break implies mixed case, so the Python rule's
 *      "not all one case" test always passes here);
 *   3. a candidate splits by the first rule that applies: '_', '/', '.' (two or more
 *      non-empty pieces); then '-' (a word of 4 or more with two or more pieces of at
 *      least 2); then camelCase.
 * A repeated token yields parts already seen, so tokens are not de-duplicated first.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

typedef struct {
    int kind;
    const void *data;
} Text;

#define AT(t, i) PyUnicode_READ((t)->kind, (t)->data, (i))

static PyObject *lower_name; /* "lower", interned */

static int
is_strip(Py_UCS4 c)
{
    switch (c) {
    case '.': case ',': case ';': case ':': case '!': case '?': case '(': case ')':
    case '[': case ']': case '{': case '}': case '"': case '\'': case '`':
        return 1;
    default:
        return 0;
    }
}

/* Character classes of ASCII: the scan for candidate tokens and the camelCase rule. */
enum { C_LOWER = 1, C_UPPER = 2, C_SEP = 4, C_JOIN = 8 };

static unsigned char ascii_class[128];

static void
init_classes(void)
{
    for (int c = 'a'; c <= 'z'; c++) {
        ascii_class[c] = C_LOWER;
    }
    for (int c = 'A'; c <= 'Z'; c++) {
        ascii_class[c] = C_UPPER;
    }
    ascii_class['_'] = ascii_class['/'] = C_SEP;
    ascii_class['-'] = ascii_class['.'] = C_JOIN;
}

/* Is c an ASCII character of one of the classes `mask`? */
static int
is_ascii(Py_UCS4 c, int mask)
{
    return c < 128 && (ascii_class[c] & mask) != 0;
}

/* A camelCase break before t[i] (s < i < e): lower -> Upper, or before the last capital
 * of a run of capitals that a lowercase letter follows (HTTPServer -> HTTP|Server). */
static int
camel_break(const Text *t, Py_ssize_t i, Py_ssize_t e)
{
    Py_UCS4 prev = AT(t, i - 1);
    if (!is_ascii(AT(t, i), C_UPPER)) {
        return 0;
    }
    if (is_ascii(prev, C_LOWER)) {
        return 1;
    }
    return is_ascii(prev, C_UPPER) && i + 1 < e && is_ascii(AT(t, i + 1), C_LOWER);
}

/* Adds the lowercased t[s:e] to `out` unless `seen` has it. 0 on success, -1 on error. */
static int
add_part(PyObject *text, const Text *t, int ascii, Py_ssize_t s, Py_ssize_t e,
         PyObject *seen, PyObject *out)
{
    PyObject *part;
    if (ascii) {
        part = PyUnicode_New(e - s, 127);
        if (part == NULL) {
            return -1;
        }
        Py_UCS1 *dst = PyUnicode_1BYTE_DATA(part);
        const Py_UCS1 *src = (const Py_UCS1 *)t->data;
        for (Py_ssize_t i = s; i < e; i++) {
            Py_UCS1 c = src[i];
            dst[i - s] = (c >= 'A' && c <= 'Z') ? (Py_UCS1)(c + ('a' - 'A')) : c;
        }
    }
    else {
        PyObject *raw = PyUnicode_Substring(text, s, e);
        if (raw == NULL) {
            return -1;
        }
        part = PyObject_CallMethodNoArgs(raw, lower_name);
        Py_DECREF(raw);
        if (part == NULL) {
            return -1;
        }
    }
    int found = PySet_Contains(seen, part);
    int rc = 0;
    if (found < 0) {
        rc = -1;
    }
    else if (!found && (PySet_Add(seen, part) < 0 || PyList_Append(out, part) < 0)) {
        rc = -1;
    }
    Py_DECREF(part);
    return rc;
}

/* Adds the pieces of t[s:e] between the `sep` characters, empty pieces dropped. */
static int
split_at(PyObject *text, const Text *t, int ascii, Py_ssize_t s, Py_ssize_t e, Py_UCS4 sep,
         PyObject *seen, PyObject *out)
{
    Py_ssize_t start = s;
    for (Py_ssize_t i = s; i <= e; i++) {
        if (i < e && AT(t, i) != sep) {
            continue;
        }
        if (i > start && add_part(text, t, ascii, start, i, seen, out) < 0) {
            return -1;
        }
        start = i + 1;
    }
    return 0;
}

/* The separators of spec §4.3, in the order their rules are tried. */
static const Py_UCS4 separators[4] = {'_', '/', '.', '-'};

/* Counts, in one pass, the non-empty pieces t[s:e] splits into at each separator, and
 * the length of the shortest piece between dashes. */
static void
count_pieces(const Text *t, Py_ssize_t s, Py_ssize_t e, Py_ssize_t count[4],
             Py_ssize_t *dash_shortest)
{
    Py_ssize_t start[4] = {s, s, s, s};
    for (Py_ssize_t i = s; i <= e; i++) {
        Py_UCS4 c = i < e ? AT(t, i) : 0;
        for (int k = 0; k < 4; k++) {
            if (i < e && c != separators[k]) {
                continue;
            }
            Py_ssize_t size = i - start[k];
            if (size > 0) {
                count[k]++;
                if (k == 3 && (count[k] == 1 || size < *dash_shortest)) {
                    *dash_shortest = size;
                }
            }
            start[k] = i + 1;
        }
    }
}

/* The camelCase pieces of t[s:e] (only called when at least one break exists). */
static int
split_camel(PyObject *text, const Text *t, int ascii, Py_ssize_t s, Py_ssize_t e,
            PyObject *seen, PyObject *out)
{
    Py_ssize_t start = s;
    for (Py_ssize_t i = s + 1; i < e; i++) {
        if (camel_break(t, i, e)) {
            if (add_part(text, t, ascii, start, i, seen, out) < 0) {
                return -1;
            }
            start = i;
        }
    }
    return add_part(text, t, ascii, start, e, seen, out);
}

/* The parts of the stripped token t[s:e] by the first rule that applies. The rule's first
 * case, a number, never applies to a candidate: each holds a letter, '_' or '/'. */
static int
add_token_parts(PyObject *text, const Text *t, int ascii, Py_ssize_t s, Py_ssize_t e,
                int has_break, PyObject *seen, PyObject *out)
{
    Py_ssize_t count[4] = {0, 0, 0, 0}, dash_shortest = 0;
    count_pieces(t, s, e, count, &dash_shortest);
    for (int k = 0; k < 3; k++) {
        if (count[k] >= 2) {
            return split_at(text, t, ascii, s, e, separators[k], seen, out);
        }
    }
    if (e - s >= 4 && count[3] >= 2 && dash_shortest >= 2) {
        return split_at(text, t, ascii, s, e, '-', seen, out);
    }
    if (!has_break) {
        return 0;
    }
    return split_camel(text, t, ascii, s, e, seen, out);
}

/* Strips t[s:e] and adds its parts. The caller saw a separator, a letter join or a
 * camelCase break in it: each of those lies inside the stripped token, since STRIP holds
 * no letter, '_' or '/'. */
static int
expand_token(PyObject *text, const Text *t, int ascii, Py_ssize_t s, Py_ssize_t e,
             int has_break, PyObject *seen, PyObject *out)
{
    while (s < e && is_strip(AT(t, s))) {
        s++;
    }
    while (e > s && is_strip(AT(t, e - 1))) {
        e--;
    }
    if (s == e) {
        return 0;
    }
    return add_token_parts(text, t, ascii, s, e, has_break, seen, out);
}

static int
is_alpha_at(const Text *t, Py_ssize_t i)
{
    Py_UCS4 c = AT(t, i);
    return c < 128 ? is_ascii(c, C_LOWER | C_UPPER) : Py_UNICODE_ISALPHA(c);
}

#if defined(__GNUC__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE inline
#endif

/* One pass over the text, specialised by the compiler for each string kind: a token is a
 * candidate when it holds '_' or '/', a '-' or '.' between two letters, or a camelCase
 * break (an ASCII capital after a lowercase letter, or after a capital when a lowercase
 * letter follows). Most tokens are none of these and cost a table lookup per character. */

static ALWAYS_INLINE int
scan(PyObject *text, const Text *t, int ascii, Py_ssize_t n, PyObject *seen, PyObject *out)
{
    const int kind = t->kind;
    const void *data = t->data;
    Py_ssize_t i = 0;
    while (i < n) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (Py_UNICODE_ISSPACE(c)) {
            i++;
            continue;
        }
        Py_ssize_t start = i;
        int separator = 0, has_break = 0;
        for (; i < n; i++) {
            c = PyUnicode_READ(kind, data, i);
            int cls = c < 128 ? ascii_class[c] : 0;
            if (cls == 0 && Py_UNICODE_ISSPACE(c)) {
                break;
            }
            if (cls & C_SEP) {
                separator = 1;
            }
            else if ((cls & C_JOIN) && i > start && i + 1 < n && is_alpha_at(t, i - 1)
                     && is_alpha_at(t, i + 1)) {
                separator = 1;
            }
            else if ((cls & C_UPPER) && i > start && !has_break) {
                has_break = camel_break(t, i, n); /* whitespace after i is not lowercase */
            }
        }
        if ((separator || has_break)
            && expand_token(text, t, ascii, start, i, has_break, seen, out) < 0) {
            return -1;
        }
    }
    return 0;
}

static PyObject *
content_expansion(PyObject *Py_UNUSED(module), PyObject *text)
{
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "content_expansion() expects str, not %.100s",
                     Py_TYPE(text)->tp_name);
        return NULL;
    }
    Text t = {PyUnicode_KIND(text), PyUnicode_DATA(text)};
    int ascii = PyUnicode_IS_ASCII(text) != 0;
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    PyObject *out = PyList_New(0);
    PyObject *seen = PySet_New(NULL);
    if (out == NULL || seen == NULL) {
        goto fail;
    }
    int rc;
    switch (t.kind) { /* constant kinds let the compiler specialise scan() */
    case PyUnicode_1BYTE_KIND:
        t.kind = PyUnicode_1BYTE_KIND;
        rc = scan(text, &t, ascii, n, seen, out);
        break;
    case PyUnicode_2BYTE_KIND:
        t.kind = PyUnicode_2BYTE_KIND;
        rc = scan(text, &t, ascii, n, seen, out);
        break;
    default:
        rc = scan(text, &t, ascii, n, seen, out);
        break;
    }
    if (rc < 0) {
        goto fail;
    }
    Py_DECREF(seen);
    return out;
fail:
    Py_XDECREF(seen);
    Py_XDECREF(out);
    return NULL;
}

static PyMethodDef methods[] = {
    {"content_expansion", content_expansion, METH_O,
     "content_expansion(text, /)\n--\n\n"
     "Parts of the compound tokens of text, lowercased, de-duplicated in first-seen order."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    .m_base = PyModuleDef_HEAD_INIT,
    .m_name = "_expand",
    .m_doc = "Compiled compound-term expansion (spec §3.7).",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC
PyInit__expand(void)
{
    init_classes();
    lower_name = PyUnicode_InternFromString("lower");
    if (lower_name == NULL) {
        return NULL;
    }
    return PyModule_Create(&module);
}
