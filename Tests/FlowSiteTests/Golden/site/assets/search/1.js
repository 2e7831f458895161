/* flowspec search index, shard 1: [href, title, context, text, lang] per entry. */
window.flowspecSearchIndex = (window.flowspecSearchIndex || []).concat([

]);
