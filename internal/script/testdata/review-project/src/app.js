const express = require('express');
const { render } = require('./lib/render');

const api_key = 'sk-live-0123456789abcdef';

function start() {
  const app = express();
  console.log('starting');
  console.log('port', 3000);
  console.debug('debug mode');
  console.info('ready');
  app.get('/', (req, res) => {
    res.send(render(req.query.name));
  });
  app.listen(3000);
}

start();
