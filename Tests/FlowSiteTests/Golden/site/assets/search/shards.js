window.flowspecSearchShards = ["assets/search/4.js","assets/search/5.js","assets/search/6.js","assets/search/8.js","assets/search/10.js","assets/search/13.js","assets/search/14.js"];
