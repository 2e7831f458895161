/* flowspec search index, shard 9: [href, title, context, text, lang] per entry. */
window.flowspecSearchIndex = (window.flowspecSearchIndex || []).concat([

]);
