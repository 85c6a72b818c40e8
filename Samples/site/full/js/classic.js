console.log('classic');
