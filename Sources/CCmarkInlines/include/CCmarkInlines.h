#ifndef FLOWSPEC_CCMARKINLINES_H
#define FLOWSPEC_CCMARKINLINES_H

/// 1 once `cmark_manage_extensions_special_characters` (CCmarkInlines.c) has replaced libcmark-gfm's (the
/// library calls it through its procedure linkage table, so the executable's definition wins)
/// and the extensions' special characters are set for good; 0 before, or when the library
/// binds its own definition (then every inline parse stays under the caller's lock).
int flowspec_cmark_special_characters_kept(void);

#endif
