/* flowspec search index, shard 10: [href, title, context, text, lang] per entry. */
window.flowspecSearchIndex = (window.flowspecSearchIndex || []).concat([

]);
