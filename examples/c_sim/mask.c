/* c-sim: the iteration mask of the vector instructions (specs/masks.yaml; the mask pages, asc-devkit@0da921b9
 * under docs/zh/api/SIMD-API/基础API/SIMD计算说明/掩码/), read once for every API that takes one.
 *
 * Bit mode (mask[], a JSON array of 64-bit words): element e of an iteration moves when bit e % 64 of word
 * e / 64 is 1 ("从低位到高位按位控制参与计算的元素"). Count mode (mask, one integer): the first `mask`
 * elements move, all of them past the iteration's count ("mask超出范围按照对应数据类型下mask最大值计算").
 */
#include "sim.h"

int mask_read(outcome *o, const jvalue *args, int bits, mask_value *m)
{
    const jvalue *v = json_get(args, "mask");
    m->bits = bits;
    m->words[0] = m->words[1] = 0;
    m->nwords = 0;
    m->fits = 1;
    if (!bits) {
        if (v == NULL || v->type != J_INT) {
            set_error(o, "call.args.mask: expected an integer, got %s", json_type_name(v));
            return 0;
        }
        m->fits = v->word_ok;
        m->words[0] = v->word;
        m->nwords = 1;
        return 1;
    }
    if (v == NULL || v->type != J_ARRAY) {
        set_error(o, "call.args.mask: expected a list of 64-bit words, got %s", json_type_name(v));
        return 0;
    }
    for (const jvalue *w = v->first; w != NULL; w = w->next) {
        if (w->type != J_INT) {
            set_error(o, "call.args.mask: expected integer words, got %s", json_type_name(w));
            return 0;
        }
        if (m->nwords < 2)
            m->words[m->nwords] = w->word;
        m->fits = m->fits && w->word_ok;
        m->nwords++;
    }
    return 1;
}

int mask_selects(const mask_value *m, int64_t e)
{
    if (!m->bits)
        return (uint64_t)e < m->words[0];
    return e < 128 && e / 64 < m->nwords && ((m->words[e / 64] >> (e % 64)) & 1u);
}

int64_t mask_last(const mask_value *m, int64_t per)
{
    for (int64_t e = per - 1; e >= 0; e--)
        if (mask_selects(m, e))
            return e;
    return -1;
}
