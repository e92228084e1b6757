/* mock_image.h: what the mock driver reads from a module image, for cuModuleGetFunction and
 * cuFuncGetParamInfo: the kernels of a CUBIN (ELF: a .text.<name> section; the parameters from the
 * EIATTR_KPARAM_INFO records of .nv.info.<name>) or of PTX text (.entry <name>(.param ...)).
 * Any other image is accepted and has every kernel name, with no parameters unless a test sets
 * them (mock_set_params). Included by mock_cuda.c only. */
#include <elf.h>

enum { IMAGE_UNKNOWN, IMAGE_ELF, IMAGE_PTX };

/* The image's format and size (the driver is given no size: ELF headers and NUL-terminated text tell). */
static int image_format(const void *image, size_t *size)
{
    const unsigned char *p = image;
    if (memcmp(p, ELFMAG, SELFMAG) == 0 && p[EI_CLASS] == ELFCLASS64) {
        const Elf64_Ehdr *h = image;
        size_t end = h->e_shoff + (size_t)h->e_shnum * h->e_shentsize;
        const Elf64_Shdr *sections = (const Elf64_Shdr *)(p + h->e_shoff);
        for (int i = 0; i < h->e_shnum; i++)
            if (sections[i].sh_type != SHT_NOBITS && sections[i].sh_offset + sections[i].sh_size > end)
                end = sections[i].sh_offset + sections[i].sh_size;
        *size = end;
        return IMAGE_ELF;
    }
    *size = strlen(image) + 1;
    return strstr(image, ".entry") != NULL ? IMAGE_PTX : IMAGE_UNKNOWN;
}

static const Elf64_Shdr *elf_section(const unsigned char *image, size_t size, const char *prefix, const char *name)
{
    const Elf64_Ehdr *h = (const Elf64_Ehdr *)image;
    if (h->e_shstrndx >= h->e_shnum)
        return NULL;
    const Elf64_Shdr *sections = (const Elf64_Shdr *)(image + h->e_shoff);
    const char *names = (const char *)image + sections[h->e_shstrndx].sh_offset;
    size_t plen = strlen(prefix);
    for (int i = 0; i < h->e_shnum; i++) {
        const char *n = names + sections[i].sh_name;
        if ((size_t)(n - (const char *)image) < size && strncmp(n, prefix, plen) == 0 &&
            strcmp(n + plen, name) == 0)
            return &sections[i];
    }
    return NULL;
}

/* EIATTR_KPARAM_INFO (0x17, format EIFMT_SVAL 0x04): u32 index, u16 ordinal, u16 offset, u32 flags with the
 * size in bits 18-31. */
static int elf_kernel(const unsigned char *image, size_t size, const char *name, int *n, size_t *offsets,
                      size_t *sizes, int max)
{
    if (elf_section(image, size, ".text.", name) == NULL)
        return 0;
    *n = 0;
    const Elf64_Shdr *info = elf_section(image, size, ".nv.info.", name);
    if (info == NULL)
        return 1;
    const unsigned char *p = image + info->sh_offset, *end = p + info->sh_size;
    while (p + 4 <= end) {
        unsigned format = p[0], attribute = p[1];
        uint16_t length;
        memcpy(&length, p + 2, 2);
        if (format == 0x04 && attribute == 0x17 && length >= 12 && p + 4 + 12 <= end) {
            uint16_t ordinal, offset;
            uint32_t flags;
            memcpy(&ordinal, p + 8, 2);
            memcpy(&offset, p + 10, 2);
            memcpy(&flags, p + 12, 4);
            if (ordinal < max) {
                offsets[ordinal] = offset;
                sizes[ordinal] = (flags >> 18) & 0x3fff;
                if (ordinal + 1 > *n)
                    *n = ordinal + 1;
            }
        }
        p += format == 0x04 ? 4 + (size_t)length : format == 0x01 ? 2 : 4; /* SVAL, NVAL, BVAL/HVAL */
    }
    return 1;
}

/* .param .u64 x / .param .align 8 .b8 x[24] / .param .f32 x, each at its alignment. */
static int ptx_kernel(const char *text, const char *name, int *n, size_t *offsets, size_t *sizes, int max)
{
    char pattern[300];
    snprintf(pattern, sizeof pattern, ".entry %s(", name);
    const char *at = strstr(text, pattern);
    if (at == NULL) {
        snprintf(pattern, sizeof pattern, ".entry %s\n", name);
        if ((at = strstr(text, pattern)) == NULL)
            return 0;
    }
    const char *close = strchr(at, ')');
    size_t offset = 0;
    *n = 0;
    for (const char *p = strstr(at, ".param"); p != NULL && close != NULL && p < close && *n < max;
         p = strstr(p + 6, ".param")) {
        size_t align = 0, width = 0, count = 1;
        const char *q = p + 6;
        while (*q == ' ' || *q == '\t')
            q++;
        if (strncmp(q, ".align", 6) == 0) {
            align = strtoul(q + 6, (char **)&q, 10);
            while (*q == ' ' || *q == '\t')
                q++;
        }
        if (*q == '.' && strchr("usfb", q[1]) != NULL)
            width = strtoul(q + 2, NULL, 10) / 8;
        const char *bracket = strchr(q, '[');
        const char *comma = strpbrk(q, ",)");
        if (bracket != NULL && comma != NULL && bracket < comma)
            count = strtoul(bracket + 1, NULL, 10);
        if (width == 0)
            return 0;
        if (align == 0)
            align = width;
        offset = (offset + align - 1) / align * align;
        offsets[*n] = offset;
        sizes[*n] = width * count;
        offset += width * count;
        (*n)++;
    }
    return 1;
}

/* Whether the image has a kernel `name`, and its parameters. */
static int image_kernel(const unsigned char *image, size_t size, int format, const char *name, int *n,
                        size_t *offsets, size_t *sizes, int max)
{
    *n = 0;
    if (format == IMAGE_ELF)
        return elf_kernel(image, size, name, n, offsets, sizes, max);
    if (format == IMAGE_PTX)
        return ptx_kernel((const char *)image, name, n, offsets, sizes, max);
    return 1;
}
